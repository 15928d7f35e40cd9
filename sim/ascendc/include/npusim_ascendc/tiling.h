// Tiling data on the kernel side. A plain struct works with GET_TILING_DATA_WITH_STRUCT; the
// op-project macros (BEGIN_TILING_DATA_DEF ... REGISTER_TILING_DATA_CLASS) declare a plain
// struct and make it the one GET_TILING_DATA reads. The struct is read from GM with scalar
// loads (4 bytes at a time, then single bytes), as the kernel's scalar unit does.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "npusim_ascendc/tensors.h"

namespace npusim::ascendc {

template <class Tiling>
Tiling read_tiling(const std::uint8_t* tiling_gm, const Loc& loc) {
    static_assert(std::is_trivially_copyable_v<Tiling>, "tiling data must be a plain struct");
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    Tiling value{};
    auto* bytes = reinterpret_cast<unsigned char*>(&value);
    const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tiling_gm));
    const npusim::GlobalTensor<std::int32_t> words{address, sizeof(Tiling) / 4};
    for (std::uint64_t i = 0; i < sizeof(Tiling) / 4; ++i) {
        const std::int32_t word = ctx.block().load(words, i, loc);
        std::memcpy(bytes + i * 4, &word, 4);
    }
    const npusim::GlobalTensor<std::int8_t> tail{address, sizeof(Tiling)};
    for (std::uint64_t i = sizeof(Tiling) / 4 * 4; i < sizeof(Tiling); ++i) {
        const std::int8_t byte = ctx.block().load(tail, i, loc);
        std::memcpy(bytes + i, &byte, 1);
    }
    return value;
}

}  // namespace npusim::ascendc

#define GET_TILING_DATA_WITH_STRUCT(Type, var, tiling)     \
    const Type var = ::npusim::ascendc::read_tiling<Type>( \
        reinterpret_cast<const uint8_t*>(tiling), std::source_location::current())
#define BEGIN_TILING_DATA_DEF(Name) struct Name {
#define TILING_DATA_FIELD_DEF(type, field) type field;
#define TILING_DATA_FIELD_DEF_ARR(type, count, field) type field[count];
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(Op, Type) \
    using NpusimTilingData_##Op = Type;      \
    using NpusimRegisteredTilingData = Type
/// GET_TILING_DATA(var, tiling) reads the struct named by REGISTER_TILING_DATA_CLASS, or
/// the one the build names with -DNPUSIM_TILING_STRUCT=Type.
#ifdef NPUSIM_TILING_STRUCT
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(NPUSIM_TILING_STRUCT, var, tiling)
#else
#define GET_TILING_DATA(var, tiling) \
    GET_TILING_DATA_WITH_STRUCT(NpusimRegisteredTilingData, var, tiling)
#endif
/// Tiling-key dispatch needs the key the host chose: not supported yet (a compile error,
/// never a silent false).
namespace npusim::ascendc {
template <auto key>
constexpr bool tiling_key_is() {
    static_assert(kAlwaysFalse<decltype(key)>,
                  "npusim Ascend C: TILING_KEY_IS is not supported yet");
    return false;
}
}  // namespace npusim::ascendc
#define TILING_KEY_IS(key) ::npusim::ascendc::tiling_key_is<key>()
