// ListTensorDesc / TensorDesc: a list of GM tensors passed to a kernel as one GM block (the
// dynamic inputs of an operator), read by the scalar unit.
//
// Layout (the vendor's, as asc-devkit's list_tensor_desc_input sample's host writes it), all
// little-endian 64-bit words from the list's address:
//   word 0: ptrOffset, the byte offset of the data pointers;
//   then per tensor: one word with dim (low 32 bits) and index (high 32 bits), then dim shape
//   words;
//   at ptrOffset: one data pointer (a GM address) per tensor.
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/tensors.h"

namespace AscendC {

/// One tensor's description: its dimensions, its index in the list and its shape.
template <class T>
class TensorDesc {
public:
    /// Where GetDesc copies the shape (the vendor's interface: the caller provides it).
    void SetShapeAddr(std::uint64_t* shape) { m_shape = shape; }
    std::uint32_t GetDim() const { return m_dim; }
    std::uint32_t GetIndex() const { return m_index; }
    std::uint64_t GetShape(std::uint32_t i) const { return m_shape != nullptr ? m_shape[i] : 0; }
    __gm__ T* GetDataPtr() const { return reinterpret_cast<__gm__ T*>(m_data); }
    GlobalTensor<T> GetDataObj() const {
        GlobalTensor<T> tensor;
        tensor.SetGlobalBuffer(GetDataPtr());
        return tensor;
    }

    // Filled by ListTensorDesc::GetDesc.
    void npusim_fill(std::uint32_t dim, std::uint32_t index, std::uintptr_t data) {
        m_dim = dim;
        m_index = index;
        m_data = data;
    }
    std::uint64_t* npusim_shape() const { return m_shape; }

private:
    std::uint32_t m_dim = 0;
    std::uint32_t m_index = 0;
    std::uint64_t* m_shape = nullptr;
    std::uintptr_t m_data = 0;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    explicit ListTensorDesc(__gm__ void* data, std::uint32_t length = 0xffffffff,
                            std::uint32_t shapeSize = 0xffffffff, Loc loc = Loc::current()) {
        Init(data, length, shapeSize, loc);
    }
    /// Reads the list's header: ptrOffset and, walking the descriptions, the tensor count.
    void Init(__gm__ void* data, std::uint32_t length = 0xffffffff,
              std::uint32_t shapeSize = 0xffffffff, Loc loc = Loc::current()) {
        (void)length;
        (void)shapeSize;
        m_words.SetGlobalBuffer(reinterpret_cast<__gm__ std::uint64_t*>(data));
        m_ptr_offset = m_words.GetValue(0, loc);
        if (m_ptr_offset % 8 != 0 || m_ptr_offset < 8) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "ListTensorDesc: ptrOffset " + std::to_string(m_ptr_offset) +
                                      " is not a multiple of 8 bytes past the header");
        }
        m_count = 0;
        for (std::uint64_t word = 1; word < m_ptr_offset / 8; ++m_count) {
            word += 1 + (m_words.GetValue(word, loc) & 0xffffffffU);
        }
    }
    std::uint32_t GetSize() const { return m_count; }
    template <class T>
    __gm__ T* GetDataPtr(std::uint32_t index, Loc loc = Loc::current()) const {
        check(index, loc);
        return reinterpret_cast<__gm__ T*>(
            static_cast<std::uintptr_t>(m_words.GetValue(m_ptr_offset / 8 + index, loc)));
    }
    template <class T>
    void GetDesc(TensorDesc<T>& desc, std::uint32_t index, Loc loc = Loc::current()) const {
        check(index, loc);
        std::uint64_t word = 1;
        for (std::uint32_t i = 0; i < index; ++i) {
            word += 1 + (m_words.GetValue(word, loc) & 0xffffffffU);
        }
        const std::uint64_t head = m_words.GetValue(word, loc);
        const auto dim = static_cast<std::uint32_t>(head & 0xffffffffU);
        if (desc.npusim_shape() != nullptr) {
            for (std::uint32_t d = 0; d < dim; ++d) {
                desc.npusim_shape()[d] = m_words.GetValue(word + 1 + d, loc);
            }
        }
        desc.npusim_fill(
            dim, static_cast<std::uint32_t>(head >> 32),
            static_cast<std::uintptr_t>(m_words.GetValue(m_ptr_offset / 8 + index, loc)));
    }

private:
    void check(std::uint32_t index, const Loc& loc) const {
        if (index >= m_count) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "ListTensorDesc: tensor " + std::to_string(index) +
                                      " of a list of " + std::to_string(m_count));
        }
    }
    GlobalTensor<std::uint64_t> m_words;
    std::uint64_t m_ptr_offset = 0;
    std::uint32_t m_count = 0;
};

}  // namespace AscendC
