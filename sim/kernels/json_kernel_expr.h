// Integer expressions of JSON kernels (docs/json-kernels.md): "block_idx * n + i", with
// + - * / % (truncating toward zero, as C++), unary -, comparisons (== != < <= > >=, giving
// 0 or 1), && || ! and min(a, b), max(a, b), over 64-bit signed integers. Names resolve to
// slots when parsed, so evaluation is a walk over a flat program with no lookups.
//
// Why not libmuparser's integer parser (Debian libmuparser-dev, muParserInt.h): it computes
// in double and rounds, so values past 2^53 lose bits silently and neither overflow nor
// division by zero is an error; the language needs exact 64-bit integers that stop with a
// message at both. The grammar is small enough that a parser of its own costs less than
// working around those semantics.
//
// Contract: parse never throws (problems come back as text); evaluate throws ExprError on
// overflow and division by zero (the caller names the op). Text longer than kMaxExprText or
// nested deeper than kMaxExprDepth is refused, so time and memory are linear in the text.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace npusim {

inline constexpr std::size_t kMaxExprText = 1000;
inline constexpr std::size_t kMaxExprDepth = 64;

/// Overflow or division by zero while evaluating: what happened, without the op's pointer.
class ExprError final : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class IntExpr final {
public:
    /// A name's slot in the values passed to evaluate, or nullopt for an undefined name.
    using Resolver = std::function<std::optional<std::uint32_t>(std::string_view name)>;

    IntExpr() = default;
    /// A constant.
    explicit IntExpr(std::int64_t value);
    /// Parses `text`; on failure returns nullopt and sets `error` ("undefined name 'nn'",
    /// "expected ')' at column 7").
    static std::optional<IntExpr> parse(std::string_view text, const Resolver& resolve,
                                        std::string& error);

    std::int64_t evaluate(std::span<const std::int64_t> slots) const;
    /// Every slot the expression reads (to tell constant and per-block expressions apart).
    const std::vector<std::uint32_t>& slots_used() const { return m_slots; }
    const std::string& text() const { return m_text; }

    enum class Code : std::uint8_t {
        Constant,
        Slot,
        Negate,
        Not,
        Add,
        Sub,
        Mul,
        Div,
        Mod,
        Less,
        LessEqual,
        Greater,
        GreaterEqual,
        Equal,
        NotEqual,
        And,
        Or,
        Min,
        Max,
    };
    struct Instruction {
        Code code = Code::Constant;
        std::int64_t value = 0;  // Constant: the value; Slot: the slot
    };

private:
    std::vector<Instruction> m_program;  // postfix
    std::vector<std::uint32_t> m_slots;
    std::string m_text;
    std::size_t m_stack_depth = 1;
};

}  // namespace npusim
