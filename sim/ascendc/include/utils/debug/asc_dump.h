// The newer header of the kernel-side dumps: asc_dump_gm, asc_dump_ubuf, asc_dump_l1buf and
// asc_dump_cbuf print like DumpTensor (npusim_ascendc/dump.h).
#pragma once

#include "kernel_operator.h"

template <class T>
void asc_dump_gm(__gm__ T* input, std::uint32_t desc, std::uint32_t dump_size,
                 npusim::ascendc::Loc loc = npusim::ascendc::Loc::current()) {
    npusim::ascendc::dump_global<T>(npusim::ascendc::gm_address(input, loc), desc, dump_size,
                                    nullptr, loc);
}
template <class T>
void asc_dump_ubuf(__ubuf__ T* input, std::uint32_t desc, std::uint32_t dump_size,
                   npusim::ascendc::Loc loc = npusim::ascendc::Loc::current()) {
    npusim::ascendc::dump_local(
        npusim::LocalTensor<T>{npusim::MemSpace::UB, reinterpret_cast<std::uintptr_t>(input),
                               dump_size},
        desc, dump_size, nullptr, "asc_dump_ubuf", loc);
}
template <class T>
void asc_dump_l1buf(__cbuf__ T* input, std::uint32_t desc, std::uint32_t dump_size,
                    npusim::ascendc::Loc loc = npusim::ascendc::Loc::current()) {
    npusim::ascendc::dump_local(
        npusim::LocalTensor<T>{npusim::MemSpace::L1, reinterpret_cast<std::uintptr_t>(input),
                               dump_size},
        desc, dump_size, nullptr, "asc_dump_l1buf", loc);
}
template <class T>
void asc_dump_cbuf(__cc__ T* input, std::uint32_t desc, std::uint32_t dump_size,
                   npusim::ascendc::Loc loc = npusim::ascendc::Loc::current()) {
    npusim::ascendc::dump_local(
        npusim::LocalTensor<T>{npusim::MemSpace::L0C, reinterpret_cast<std::uintptr_t>(input),
                               dump_size},
        desc, dump_size, nullptr, "asc_dump_cbuf", loc);
}
