// register/tilingdata_base.h: the tiling-data macros of an operator project's op_host
// tiling header (BEGIN_TILING_DATA_DEF(Name) / TILING_DATA_FIELD_DEF(_ARR/_STRUCT) /
// END_TILING_DATA_DEF / REGISTER_TILING_DATA_CLASS, with or without trailing `;`, at global
// scope or in a namespace). On the host a struct gets set_<field>/get_<field>, SaveToBuffer
// and GetDataSize; its bytes are its plain members in order, the same layout as the kernel
// side's struct (npusim_ascendc/tiling.h), which GET_TILING_DATA reads. npusim_add_ascendc_op
// compiles the op_kernel sources with NPUSIM_OP_KERNEL_SIDE, where this header is the kernel's.
#pragma once

#if defined(NPUSIM_OP_KERNEL_SIDE)
#include "kernel_tiling/kernel_tiling.h"
#else

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace npusim::ascendc::op {

/// SaveToBuffer: the struct's bytes into the tiling buffer; a buffer too small is an error.
inline void save_tiling(const void* data, std::size_t bytes, void* buffer, std::size_t capacity,
                        const char* type) {
    if (buffer == nullptr || bytes > capacity) {
        throw std::length_error(std::string("tiling data ") + type + " (" + std::to_string(bytes) +
                                " bytes) does not fit the tiling buffer (" +
                                std::to_string(capacity) + " bytes)");
    }
    std::memcpy(buffer, data, bytes);
}

}  // namespace npusim::ascendc::op

#define BEGIN_TILING_DATA_DEF(Name)                                                          \
    class Name {                                                                             \
    public:                                                                                  \
        void SaveToBuffer(void* buffer, std::size_t capacity) const {                        \
            ::npusim::ascendc::op::save_tiling(this, sizeof(Name), buffer, capacity, #Name); \
        }                                                                                    \
        std::size_t GetDataSize() const { return sizeof(Name); }

#define TILING_DATA_FIELD_DEF(type, field) \
    type field{};                          \
    void set_##field(type value) {         \
        field = value;                     \
    }                                      \
    type get_##field() const {             \
        return field;                      \
    }
#define TILING_DATA_FIELD_DEF_ARR(type, count, field) \
    type field[count]{};                              \
    void set_##field(const type* values) {            \
        std::memcpy(field, values, sizeof(field));    \
    }                                                 \
    type* get_##field() {                             \
        return field;                                 \
    }
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) \
    type field{};                                 \
    void npusim_tiling_struct_##field() const {}
#define END_TILING_DATA_DEF \
    }                       \
    ;
   /// The op's tiling struct, by op type (the kernel side reads it with GET_TILING_DATA).
#define REGISTER_TILING_DATA_CLASS(Op, Type) using NpusimTilingData_##Op = Type;

#endif
