// Tensor dumps: DumpTensor / DumpAccChkPoint and the newer asc_dump_gm / asc_dump_ubuf print a
// tensor's first elements on stdout in the vendor's documented format (Ascend C API
// reference, "DumpTensor"):
//   DumpTensor: desc=5, addr=0x0, data_type=float16, position=UB, dump_size=4
//   [1.000000, 2.000000, 3.000000, 4.000000]
// with a ShapeInfo the elements nest by the shape ("[[a,b],[c,d]]", "-" where dumpSize runs
// out). As on hardware the dump is ordered by a PipeBarrier<PIPE_ALL> before and after it
// (the vendor's dump copies with every pipe drained); npusim then reads the elements with
// scalar loads (timed as such; hardware copies them to a GM ring buffer that the runtime
// prints after the kernel) and prints when the scalar unit reaches the call. UB, L1, L0C and
// GM tensors (L1 / L0C in npusim's row-major layout, see docs/ascendc.md).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "npusim_ascendc/shape_info.h"
#include "npusim_ascendc/tensors.h"

namespace npusim::ascendc {

/// The vendor's data_type names.
template <Element T>
constexpr const char* dump_type_name() {
    constexpr DType d = dtype_of<T>;
    if constexpr (d == DType::F16) return "float16";
    if constexpr (d == DType::F32) return "float32";
    if constexpr (d == DType::BF16) return "bfloat16";
    if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
    if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
    if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
    if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
    if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
    if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
    if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
    if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
    return "unknown";
}

template <Element T>
std::string dump_text(T value) {
    char text[64];
    if constexpr (FloatElement<T>) {
        std::snprintf(text, sizeof text, "%f", static_cast<double>(static_cast<float>(value)));
    } else if constexpr (std::is_signed_v<T>) {
        std::snprintf(text, sizeof text, "%" PRId64, static_cast<std::int64_t>(value));
    } else {
        std::snprintf(text, sizeof text, "%" PRIu64, static_cast<std::uint64_t>(value));
    }
    return text;
}

/// Nests `values` by `shape` from dimension `d` on ("-" past the values).
inline void dump_nested(std::string& out, const std::vector<std::string>& values,
                        const AscendC::ShapeInfo& shape, std::uint8_t d, std::uint64_t& next) {
    out += '[';
    for (std::uint32_t i = 0; i < shape.shape[d]; ++i) {
        if (i != 0) out += d + 1 == shape.shapeDim ? "," : ",\n";
        if (d + 1 == shape.shapeDim) {
            out += next < values.size() ? values[next] : "-";
            ++next;
        } else {
            dump_nested(out, values, shape, static_cast<std::uint8_t>(d + 1), next);
        }
    }
    out += ']';
}

/// Drains every pipe, reads `count` elements through `view` with scalar loads, prints them,
/// drains again. `view` is a native LocalTensor (UB) or a GlobalView.
template <Element T, class View>
void dump_tensor(const View& view, const char* position, std::uint32_t desc, std::uint32_t count,
                 const AscendC::ShapeInfo* shape, const Loc& loc) {
    KernelContext& ctx = context(loc);
    {
        Resume resume(ctx);
        ctx.pipe_barrier(Pipe::ALL, loc);
    }
    std::vector<std::string> values;
    values.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i)
        values.push_back(dump_text(scalar_get<T>(view, i, loc)));
    std::string out = "DumpTensor: desc=" + std::to_string(desc) + ", addr=0x";
    char address[32];
    std::snprintf(address, sizeof address, "%" PRIx64, static_cast<std::uint64_t>(view.address));
    out += address;
    out += std::string(", data_type=") + dump_type_name<T>() + ", position=" + position +
           ", dump_size=" + std::to_string(count) + "\n";
    if (shape != nullptr && shape->shapeDim != 0) {
        std::uint64_t size = 1;
        for (std::uint8_t d = 0; d < shape->shapeDim; ++d) size *= shape->shape[d];
        std::string dims;
        for (std::uint8_t d = 0; d < shape->shapeDim; ++d)
            dims += (d != 0 ? ", " : "") + std::to_string(shape->shape[d]);
        if (size < count) {
            out += "shape is [" + dims + "], dumpSize is " + std::to_string(count) +
                   ", dumpSize is greater than shapeSize.\n";
        } else if (size > count) {
            out += "shape is [" + dims + "], dumpSize is " + std::to_string(count) +
                   ", data is not enough.\n";
        }
        std::uint64_t next = 0;
        dump_nested(out, values, *shape, 0, next);
    } else {
        out += '[';
        for (std::size_t i = 0; i < values.size(); ++i) out += (i != 0 ? ", " : "") + values[i];
        out += ']';
    }
    out += '\n';
    std::fputs(out.c_str(), stdout);
    Resume resume(ctx);
    ctx.pipe_barrier(Pipe::ALL, loc);
}

template <Element T>
void dump_local(const npusim::LocalTensor<T>& t, std::uint32_t desc, std::uint32_t count,
                const AscendC::ShapeInfo* shape, const char* api, const Loc& loc) {
    const char* position = t.space == MemSpace::UB    ? "UB"
                           : t.space == MemSpace::L1  ? "L1"
                           : t.space == MemSpace::L0C ? "L0C"
                                                      : nullptr;
    if (position == nullptr) {
        throw KernelError(EventIds::where(loc) + api + " of a tensor in " +
                          std::string(to_string(t.space)) +
                          ": the vendor dumps UB, L1, L0C and GM tensors only");
    }
    dump_tensor<T>(t, position, desc, count, shape, loc);
}
template <Element T>
void dump_global(std::uint64_t address, std::uint32_t desc, std::uint32_t count,
                 const AscendC::ShapeInfo* shape, const Loc& loc) {
    GlobalView<T> view;
    view.address = address;
    view.count = count;
    dump_tensor<T>(view, "GM", desc, count, shape, loc);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// DumpTensor(tensor, desc, dumpSize[, shapeInfo]): see the top of this file.
template <class T>
void DumpTensor(const LocalTensor<T>& tensor, std::uint32_t desc, std::uint32_t dumpSize,
                Loc loc = Loc::current()) {
    npusim::ascendc::dump_local(tensor.native(), desc, dumpSize, nullptr, "DumpTensor", loc);
}
template <class T>
void DumpTensor(const LocalTensor<T>& tensor, std::uint32_t desc, std::uint32_t dumpSize,
                const ShapeInfo& shapeInfo, Loc loc = Loc::current()) {
    npusim::ascendc::dump_local(tensor.native(), desc, dumpSize, &shapeInfo, "DumpTensor", loc);
}
template <class T>
void DumpTensor(const GlobalTensor<T>& tensor, std::uint32_t desc, std::uint32_t dumpSize,
                Loc loc = Loc::current()) {
    npusim::ascendc::dump_global<T>(tensor.address(), desc, dumpSize, nullptr, loc);
}
template <class T>
void DumpTensor(const GlobalTensor<T>& tensor, std::uint32_t desc, std::uint32_t dumpSize,
                const ShapeInfo& shapeInfo, Loc loc = Loc::current()) {
    npusim::ascendc::dump_global<T>(tensor.address(), desc, dumpSize, &shapeInfo, loc);
}
/// DumpAccChkPoint(tensor, index, countOff, dumpSize): DumpTensor of tensor[countOff..].
template <class T>
void DumpAccChkPoint(const LocalTensor<T>& tensor, std::uint32_t index, std::uint32_t countOff,
                     std::uint32_t dumpSize, Loc loc = Loc::current()) {
    npusim::ascendc::dump_local(tensor[countOff].native(), index, dumpSize, nullptr,
                                "DumpAccChkPoint", loc);
}
template <class T>
void DumpAccChkPoint(const GlobalTensor<T>& tensor, std::uint32_t index, std::uint32_t countOff,
                     std::uint32_t dumpSize, Loc loc = Loc::current()) {
    npusim::ascendc::dump_global<T>(tensor.address() + countOff * sizeof(T), index, dumpSize,
                                    nullptr, loc);
}

}  // namespace AscendC
