// A vector of trivially copyable values that holds up to N of them inside itself and more on
// the heap: all inside while size() <= N, all on the heap otherwise (the heap array is kept
// when it shrinks, so a value that grows and shrinks again allocates once). The checker keeps
// millions of small lists (a clock's entries, an interval's reads) that nearly always hold one
// or two values: inline, they cost no allocation and no pointer chase, and a copy is a fixed
// size copy.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace npusim {

template <class T, std::size_t N>
class SmallVector final {
    static_assert(std::is_trivially_copyable_v<T> && N > 0);

public:
    SmallVector() = default;
    SmallVector(const SmallVector& other) { *this = other; }
    SmallVector& operator=(const SmallVector& other) {
        if (this == &other) return *this;
        if (other.m_size > N) {
            reserve(other.m_size);
            std::copy_n(other.m_heap.get(), other.m_size, m_heap.get());
        } else {
            m_inline = other.m_inline;
        }
        m_size = other.m_size;
        return *this;
    }
    SmallVector(SmallVector&& other) noexcept { *this = std::move(other); }
    SmallVector& operator=(SmallVector&& other) noexcept {
        if (this == &other) return *this;
        m_size = std::exchange(other.m_size, 0);
        m_capacity = std::exchange(other.m_capacity, 0);
        m_inline = other.m_inline;
        m_heap = std::move(other.m_heap);
        return *this;
    }
    ~SmallVector() = default;

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T* data() { return m_size <= N ? m_inline.data() : m_heap.get(); }
    const T* data() const { return m_size <= N ? m_inline.data() : m_heap.get(); }
    T* begin() { return data(); }
    T* end() { return data() + m_size; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + m_size; }
    T& operator[](std::size_t i) { return data()[i]; }
    const T& operator[](std::size_t i) const { return data()[i]; }

    void clear() { m_size = 0; }
    void push_back(const T& value) {
        if (m_size < N) {  // stays inside
            m_inline[m_size++] = value;
            return;
        }
        resize(m_size + 1);
        data()[m_size - 1] = value;
    }
    /// Inserts `value` before position `at` (at <= size()).
    void insert(std::size_t at, const T& value) {
        resize(m_size + 1);
        T* d = data();
        std::copy_backward(d + at, d + m_size - 1, d + m_size);
        d[at] = value;
    }
    /// Grows (new values are T{}) or shrinks to `n` values.
    void resize(std::size_t n) {
        if (n > N) {
            const bool was_inline = m_size <= N;
            reserve(n);
            if (was_inline) std::copy_n(m_inline.data(), m_size, m_heap.get());
        } else if (m_size > N) {  // back inside
            std::copy_n(m_heap.get(), n, m_inline.data());
        }
        T* d = n <= N ? m_inline.data() : m_heap.get();
        if (n > m_size) std::fill(d + m_size, d + n, T{});
        m_size = static_cast<std::uint32_t>(n);
    }
    /// Makes the values [first, first + n) (not inside this vector).
    void assign(const T* first, std::size_t n) {
        resize(n);
        std::copy_n(first, n, data());
    }
    /// Keeps the values for which keep(value) is true, in order; keep sees each value once,
    /// in order.
    template <class Keep>
    void filter(Keep keep) {
        T* d = data();
        std::size_t out = 0;
        for (std::size_t i = 0; i < m_size; ++i) {
            if (keep(d[i])) d[out++] = d[i];
        }
        resize(out);
    }

private:
    // Heap room for `n` values, keeping the heap's values when they are the current ones.
    void reserve(std::size_t n) {
        if (n <= m_capacity) return;
        const std::size_t capacity = std::max({n, std::size_t{2} * m_capacity, 2 * N + 2});
        auto grown = std::make_unique<T[]>(capacity);
        if (m_size > N) std::copy_n(m_heap.get(), m_size, grown.get());
        m_heap = std::move(grown);
        m_capacity = static_cast<std::uint32_t>(capacity);
    }

    std::uint32_t m_size = 0;
    std::uint32_t m_capacity = 0;  // of m_heap
    std::array<T, N> m_inline{};
    std::unique_ptr<T[]> m_heap;  // all values while m_size > N
};

}  // namespace npusim
