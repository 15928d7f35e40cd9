// The attributes a tiling function reads (gert::RuntimeAttrs, TilingContext::GetAttrs), stored
// as the vendor's runtime stores them: one contiguous buffer, each attribute at its own 8-byte
// aligned offset, read by index with no type check. GetAttrPointer<T>(i) reinterprets the bytes
// of attribute i as a T, so a read with the wrong type gives what the device gives (GetBool on
// a ListInt reads the first byte of the list's capacity word); an index past the last attribute
// gives null. Layouts: Int an int64_t, Float a float, Bool one byte, String its characters and
// a NUL, ListInt / ListFloat / ListBool a ContinuousVector (capacity, size, 40 reserved bytes,
// then the elements: int64_t, float, one byte per bool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace gert {

/// A list attribute's header and elements, as laid out in the attribute buffer; only ever seen
/// through a pointer into that buffer.
class ContinuousVector {
public:
    ContinuousVector() = delete;
    std::size_t GetSize() const { return m_size; }
    std::size_t GetCapacity() const { return m_capacity; }
    const void* GetData() const {
        return reinterpret_cast<const unsigned char*>(this) + kElementsOffset;
    }

    /// Where the elements start: after capacity, size and the reserved bytes.
    static constexpr std::size_t kElementsOffset = 2 * sizeof(std::size_t) + 40;

private:
    std::size_t m_capacity;
    std::size_t m_size;
    unsigned char m_reserved[40];
};

template <class T>
class TypedContinuousVector : public ContinuousVector {
public:
    const T* GetData() const { return static_cast<const T*>(ContinuousVector::GetData()); }
};

/// One attribute value as the aclnn call or the definition's default gives it.
using AttrValue = std::variant<std::int64_t, float, bool, std::string, std::vector<std::int64_t>,
                               std::vector<float>, std::vector<bool>>;

class RuntimeAttrs {
public:
    RuntimeAttrs() = default;
    explicit RuntimeAttrs(const std::vector<AttrValue>& values) {
        std::vector<unsigned char> bytes;
        for (const AttrValue& value : values) {
            m_offsets.push_back(bytes.size());
            std::visit([&](const auto& v) { append(bytes, v); }, value);
            bytes.resize((bytes.size() + 7) / 8 * 8 + 8, 0);  // 8 bytes of padding at least
        }
        m_words.resize(bytes.size() / 8, 0);
        if (!bytes.empty()) std::memcpy(m_words.data(), bytes.data(), bytes.size());
    }
    std::size_t GetAttrNum() const { return m_offsets.size(); }
    /// The bytes of attribute `index` as a T (no type check, as on the device); null past the
    /// last attribute.
    template <class T>
    const T* GetAttrPointer(std::size_t index) const {
        if (index >= m_offsets.size()) return nullptr;
        return reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(m_words.data()) +
                                          m_offsets[index]);
    }
    const std::int64_t* GetInt(std::size_t index) const {
        return GetAttrPointer<std::int64_t>(index);
    }
    const float* GetFloat(std::size_t index) const { return GetAttrPointer<float>(index); }
    const bool* GetBool(std::size_t index) const { return GetAttrPointer<bool>(index); }
    const char* GetStr(std::size_t index) const { return GetAttrPointer<char>(index); }
    const TypedContinuousVector<std::int64_t>* GetListInt(std::size_t index) const {
        return GetAttrPointer<TypedContinuousVector<std::int64_t>>(index);
    }
    const TypedContinuousVector<float>* GetListFloat(std::size_t index) const {
        return GetAttrPointer<TypedContinuousVector<float>>(index);
    }
    const TypedContinuousVector<bool>* GetListBool(std::size_t index) const {
        return GetAttrPointer<TypedContinuousVector<bool>>(index);
    }

private:
    template <class T>
    static void put(std::vector<unsigned char>& bytes, const T& value) {
        const auto* raw = reinterpret_cast<const unsigned char*>(&value);
        bytes.insert(bytes.end(), raw, raw + sizeof(T));
    }
    static void append(std::vector<unsigned char>& bytes, const std::string& text) {
        bytes.insert(bytes.end(), text.begin(), text.end());
        bytes.push_back(0);
    }
    template <class T>
    static void append(std::vector<unsigned char>& bytes, const std::vector<T>& list) {
        put(bytes, static_cast<std::size_t>(list.size()));  // capacity
        put(bytes, static_cast<std::size_t>(list.size()));  // size
        bytes.resize(bytes.size() + 40, 0);
        for (const T element : list) {
            if constexpr (std::is_same_v<T, bool>) {
                bytes.push_back(element ? 1 : 0);
            } else {
                put(bytes, element);
            }
        }
    }
    template <class T>
    static void append(std::vector<unsigned char>& bytes, const T& value) {
        if constexpr (std::is_same_v<T, bool>) {
            bytes.push_back(value ? 1 : 0);
        } else {
            put(bytes, value);
        }
    }

    std::vector<std::size_t> m_offsets;
    std::vector<std::uint64_t> m_words;  // 8-byte aligned storage
};

}  // namespace gert
