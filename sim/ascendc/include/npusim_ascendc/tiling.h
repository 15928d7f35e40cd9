// Tiling data on the kernel side. A plain struct works with GET_TILING_DATA_WITH_STRUCT; the
// op-project macros (BEGIN_TILING_DATA_DEF ... REGISTER_TILING_DATA_CLASS, written with or
// without a trailing `;`, at global scope or inside a namespace such as optiling) declare a
// plain struct and make it the one GET_TILING_DATA reads. The struct is read from GM with
// scalar loads (4 bytes at a time, then single bytes), as the kernel's scalar unit does.
// TILING_KEY_IS(k) compares with the launch's tiling key (the one an op project's tiling
// function set, for an aclnn call; else ICPU_SET_TILING_KEY, or npusim::ascendc::set_tiling_key
// before a launch; 0 when never set), read when the kernel runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>

#include "npusim_ascendc/tensors.h"

namespace npusim::ascendc {

/// `bytes` bytes at GM `address` into `out`, with the scalar unit's loads.
inline void read_gm_bytes(std::uint64_t address, std::size_t bytes, unsigned char* out,
                          const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    std::size_t i = 0;
    if (address % 4 == 0) {
        const npusim::GlobalTensor<std::int32_t> words{address, bytes / 4};
        for (; i + 4 <= bytes; i += 4) {
            const std::int32_t word = ctx.block().load(words, i / 4, loc);
            std::memcpy(out + i, &word, 4);
        }
    }
    const npusim::GlobalTensor<std::int8_t> tail{address, bytes};
    for (; i < bytes; ++i) {
        const std::int8_t byte = ctx.block().load(tail, i, loc);
        std::memcpy(out + i, &byte, 1);
    }
}

template <class Tiling>
Tiling read_tiling(const std::uint8_t* tiling_gm, const Loc& loc) {
    static_assert(std::is_trivially_copyable_v<Tiling>, "tiling data must be a plain struct");
    Tiling value{};
    read_gm_bytes(gm_address(tiling_gm, loc), sizeof(Tiling),
                  reinterpret_cast<unsigned char*>(&value), loc);
    return value;
}

/// One member of the tiling struct (GET_TILING_DATA_MEMBER): only its bytes are loaded.
template <class Member>
Member read_tiling_member(const std::uint8_t* tiling_gm, std::size_t offset, const Loc& loc) {
    Member value{};
    read_gm_bytes(gm_address(tiling_gm, loc) + offset, sizeof(Member),
                  reinterpret_cast<unsigned char*>(&value), loc);
    return value;
}

/// The tiling key TILING_KEY_IS compares with.
inline std::uint64_t g_tiling_key = 0;
inline void set_tiling_key(std::uint64_t key) {
    g_tiling_key = key;
}

/// Launches that carry their own tiling key (an op project's aclnn call, which launches with
/// the key its tiling function chose): the key of each running block, by its kernel context.
/// Blocks of other launches read g_tiling_key.
inline std::map<const KernelContext*, std::uint64_t>& launch_tiling_keys() {
    static std::map<const KernelContext*, std::uint64_t> keys;
    return keys;
}
inline std::uint64_t current_tiling_key() {
    if (t_current != nullptr) {
        const auto found = launch_tiling_keys().find(t_current);
        if (found != launch_tiling_keys().end()) return found->second;
    }
    return g_tiling_key;
}

}  // namespace npusim::ascendc

/// Tiling structs are often declared in namespace optiling; GET_TILING_DATA looks there too.
namespace optiling {}

namespace npusim::ascendc {
/// SaveToBuffer of a kernel-side tiling struct `type`: its bytes into `buffer` (a UsageError
/// naming the struct when they do not fit).
inline void save_tiling_bytes(const void* data, std::size_t bytes, void* buffer,
                              std::size_t capacity, const char* type) {
    if (buffer == nullptr || bytes > capacity) {
        throw UsageError(std::string("SaveToBuffer: the tiling data ") + type + " (" +
                         std::to_string(bytes) + " bytes) does not fit the buffer (" +
                         std::to_string(capacity) + " bytes)");
    }
    std::memcpy(buffer, data, bytes);
}
}  // namespace npusim::ascendc

// A modifiable copy, as the vendor's (kernels pass its arrays to non-const pointers).
#define GET_TILING_DATA_WITH_STRUCT(Type, var, tiling)                                        \
    Type var = ::npusim::ascendc::read_tiling<Type>(reinterpret_cast<const uint8_t*>(tiling), \
                                                    std::source_location::current())
/// The pointer form: `ptr` points to a copy read once, as above.
#define GET_TILING_DATA_PTR_WITH_STRUCT(Type, ptr, tiling)               \
    GET_TILING_DATA_WITH_STRUCT(Type, npusim_tiling_copy_##ptr, tiling); \
    const Type* ptr = &npusim_tiling_copy_##ptr
#define GET_TILING_DATA_MEMBER(Type, member, var, tiling)                           \
    const auto var = ::npusim::ascendc::read_tiling_member<decltype(Type::member)>( \
        reinterpret_cast<const uint8_t*>(tiling), offsetof(Type, member),           \
        std::source_location::current())
// Each field ends in a member function definition, so the `;` after a field is optional.
// A single-source program's host half fills the same struct: set_<field> / get_<field>,
// SaveToBuffer (its bytes, a buffer too small is an error) and GetDataSize, as the host side's
// macros (register/tilingdata_base.h) give.
#define BEGIN_TILING_DATA_DEF(Name)                                                             \
    struct Name {                                                                               \
        void SaveToBuffer(void* buffer, std::size_t capacity) const {                           \
            ::npusim::ascendc::save_tiling_bytes(this, sizeof(*this), buffer, capacity, #Name); \
        }                                                                                       \
        std::size_t GetDataSize() const { return sizeof(*this); }
#define TILING_DATA_FIELD_DEF(type, field) \
    type field;                            \
    void set_##field(type value) {         \
        field = value;                     \
    }                                      \
    type get_##field() const {             \
        return field;                      \
    }
#define TILING_DATA_FIELD_DEF_ARR(type, count, field) \
    type field[count];                                \
    void set_##field(const type* values) {            \
        std::memcpy(field, values, sizeof(field));    \
    }                                                 \
    type* get_##field() {                             \
        return field;                                 \
    }                                                 \
    const type* get_##field() const {                 \
        return field;                                 \
    }
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) \
    type field;                                   \
    void npusim_tiling_field_##field() const {}
#define END_TILING_DATA_DEF \
    }                       \
    ;
/// REGISTER_TILING_DATA_CLASS(Op, Type) declares an overload that names Type for op Op, so a
/// translation unit may see several ops' registrations; GET_TILING_DATA(var, tiling) takes the
/// one registration it sees (two: an "ambiguous" error at GET_TILING_DATA; then name the
/// struct with GET_TILING_DATA_WITH_STRUCT or -DNPUSIM_TILING_STRUCT=Type).
#define REGISTER_TILING_DATA_CLASS(Op, Type) \
    using NpusimTilingData_##Op = Type;      \
    struct NpusimTilingOp_##Op;              \
    Type npusim_registered_tiling_data(NpusimTilingOp_##Op*);
/// npusim_add_ascendc_op defines NPUSIM_TILING_OP=<Op> for the op_kernel source of an op with
/// a registration: GET_TILING_DATA takes that op's struct among several registrations.
#define NPUSIM_TILING_OP_TAG_(op) NpusimTilingOp_##op
#define NPUSIM_TILING_OP_TAG(op) NPUSIM_TILING_OP_TAG_(op)
#ifdef NPUSIM_TILING_STRUCT
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(NPUSIM_TILING_STRUCT, var, tiling)
#elif defined(NPUSIM_TILING_OP)
#define GET_TILING_DATA(var, tiling)                                         \
    using namespace ::optiling;                                              \
    GET_TILING_DATA_WITH_STRUCT(                                             \
        decltype(npusim_registered_tiling_data(                              \
            static_cast<NPUSIM_TILING_OP_TAG(NPUSIM_TILING_OP)*>(nullptr))), \
        var, tiling)
#else
#define GET_TILING_DATA(var, tiling) \
    using namespace ::optiling;      \
    GET_TILING_DATA_WITH_STRUCT(decltype(npusim_registered_tiling_data(nullptr)), var, tiling)
#endif
#define TILING_KEY_IS(key) \
    (::npusim::ascendc::current_tiling_key() == static_cast<std::uint64_t>(key))
