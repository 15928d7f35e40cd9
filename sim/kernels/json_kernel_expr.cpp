#include "sim/kernels/json_kernel_expr.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace npusim {

namespace {

using Code = IntExpr::Code;
using Instruction = IntExpr::Instruction;

// Recursive descent over the grammar, lowest precedence first:
//   or := and ('||' and)*          and := cmp ('&&' cmp)*
//   cmp := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
//   sum := term (('+'|'-') term)*  term := unary (('*'|'/'|'%') unary)*
//   unary := ('-'|'!') unary | primary
//   primary := integer | name | name '(' or ',' or ')' | '(' or ')'
class Parser {
public:
    Parser(std::string_view text, const IntExpr::Resolver& resolve, std::vector<Instruction>& out,
           std::vector<std::uint32_t>& slots)
        : m_text(text), m_resolve(resolve), m_out(out), m_slots(slots) {}

    bool run(std::string& error) {
        parse_or(0);
        skip_space();
        if (m_error.empty() && m_at != m_text.size())
            fail("unexpected '" + std::string(1, m_text[m_at]) + "'");
        error = m_error;
        return m_error.empty();
    }

private:
    void fail(const std::string& what) {
        if (m_error.empty()) m_error = what + " at column " + std::to_string(m_at + 1);
    }
    void skip_space() {
        while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at])))
            ++m_at;
    }
    bool accept(std::string_view token) {
        skip_space();
        if (m_text.substr(m_at, token.size()) != token) return false;
        m_at += token.size();
        return true;
    }
    bool deeper(std::size_t depth) {
        if (depth < kMaxExprDepth) return true;
        fail("nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
        return false;
    }
    void emit(Code code, std::int64_t value = 0) { m_out.push_back({code, value}); }

    void parse_or(std::size_t depth) {
        if (!deeper(depth)) return;
        parse_and(depth + 1);
        while (m_error.empty() && accept("||")) {
            parse_and(depth + 1);
            emit(Code::Or);
        }
    }
    void parse_and(std::size_t depth) {
        parse_cmp(depth);
        while (m_error.empty() && accept("&&")) {
            parse_cmp(depth);
            emit(Code::And);
        }
    }
    void parse_cmp(std::size_t depth) {
        parse_sum(depth);
        static constexpr std::pair<std::string_view, Code> kOps[] = {
            {"==", Code::Equal},        {"!=", Code::NotEqual}, {"<=", Code::LessEqual},
            {">=", Code::GreaterEqual}, {"<", Code::Less},      {">", Code::Greater}};
        for (const auto& [token, code] : kOps) {
            if (m_error.empty() && accept(token)) {
                parse_sum(depth);
                emit(code);
                return;
            }
        }
    }
    void parse_sum(std::size_t depth) {
        parse_term(depth);
        while (m_error.empty()) {
            if (accept("+")) {
                parse_term(depth);
                emit(Code::Add);
            } else if (accept("-")) {
                parse_term(depth);
                emit(Code::Sub);
            } else {
                return;
            }
        }
    }
    void parse_term(std::size_t depth) {
        parse_unary(depth);
        while (m_error.empty()) {
            if (accept("*")) {
                parse_unary(depth);
                emit(Code::Mul);
            } else if (accept("/")) {
                parse_unary(depth);
                emit(Code::Div);
            } else if (accept("%")) {
                parse_unary(depth);
                emit(Code::Mod);
            } else {
                return;
            }
        }
    }
    void parse_unary(std::size_t depth) {
        if (!deeper(depth)) return;
        if (accept("-")) {
            parse_unary(depth + 1);
            emit(Code::Negate);
        } else if (m_text.substr(m_at, 2) != "!=" && accept("!")) {
            parse_unary(depth + 1);
            emit(Code::Not);
        } else {
            parse_primary(depth + 1);
        }
    }
    void parse_primary(std::size_t depth) {
        skip_space();
        if (m_at >= m_text.size()) return fail("expected a value");
        const char c = m_text[m_at];
        if (accept("(")) {
            parse_or(depth + 1);
            if (m_error.empty() && !accept(")")) fail("expected ')'");
            return;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::uint64_t value = 0;
            while (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at]))) {
                const auto digit = static_cast<std::uint64_t>(m_text[m_at] - '0');
                if (value >
                    (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - digit) /
                        10)
                    return fail("integer larger than 9223372036854775807");
                value = value * 10 + digit;
                ++m_at;
            }
            return emit(Code::Constant, static_cast<std::int64_t>(value));
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t start = m_at;
            while (m_at < m_text.size() &&
                   (std::isalnum(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '_'))
                ++m_at;
            const std::string_view name = m_text.substr(start, m_at - start);
            if (name == "min" || name == "max") {
                if (!accept("(")) return fail("expected '(' after " + std::string(name));
                parse_or(depth + 1);
                if (m_error.empty() && !accept(",")) return fail("expected ','");
                parse_or(depth + 1);
                if (m_error.empty() && !accept(")")) return fail("expected ')'");
                return emit(name == "min" ? Code::Min : Code::Max);
            }
            const auto slot = m_resolve(name);
            if (!slot) {
                m_at = start;
                return fail("undefined name '" + std::string(name) + "'");
            }
            if (std::find(m_slots.begin(), m_slots.end(), *slot) == m_slots.end())
                m_slots.push_back(*slot);
            return emit(Code::Slot, *slot);
        }
        fail("unexpected '" + std::string(1, c) + "'");
    }

    std::string_view m_text;
    const IntExpr::Resolver& m_resolve;
    std::vector<Instruction>& m_out;
    std::vector<std::uint32_t>& m_slots;
    std::size_t m_at = 0;
    std::string m_error;
};

[[noreturn]] void overflow(const char* what, std::int64_t a, std::int64_t b) {
    throw ExprError("integer overflow: " + std::to_string(a) + " " + what + " " +
                    std::to_string(b) + " does not fit in 64 bits");
}

}  // namespace

IntExpr::IntExpr(std::int64_t value)
    : m_program{{Code::Constant, value}}, m_text(std::to_string(value)) {}

std::optional<IntExpr> IntExpr::parse(std::string_view text, const Resolver& resolve,
                                      std::string& error) {
    if (text.size() > kMaxExprText) {
        error = "expression longer than " + std::to_string(kMaxExprText) + " characters";
        return std::nullopt;
    }
    IntExpr e;
    e.m_text = std::string(text);
    Parser parser(text, resolve, e.m_program, e.m_slots);
    if (!parser.run(error)) return std::nullopt;
    std::size_t depth = 0;
    for (const Instruction& i : e.m_program) {
        if (i.code == Code::Constant || i.code == Code::Slot) {
            e.m_stack_depth = std::max(e.m_stack_depth, ++depth);
        } else if (i.code != Code::Negate && i.code != Code::Not) {
            --depth;
        }
    }
    return e;
}

std::int64_t IntExpr::evaluate(std::span<const std::int64_t> slots) const {
    constexpr std::size_t kInline = 16;
    std::int64_t inline_stack[kInline] = {};
    std::vector<std::int64_t> heap;
    std::int64_t* stack = inline_stack;
    if (m_stack_depth > kInline) {
        heap.resize(m_stack_depth);
        stack = heap.data();
    }
    std::size_t top = 0;
    for (const Instruction& i : m_program) {
        switch (i.code) {
            case Code::Constant:
                stack[top++] = i.value;
                continue;
            case Code::Slot:
                stack[top++] = slots[static_cast<std::size_t>(i.value)];
                continue;
            case Code::Negate: {
                std::int64_t& a = stack[top - 1];
                std::int64_t r = 0;
                if (__builtin_sub_overflow(std::int64_t{0}, a, &r)) overflow("-", 0, a);
                a = r;
                continue;
            }
            case Code::Not:
                stack[top - 1] = stack[top - 1] == 0 ? 1 : 0;
                continue;
            default:
                break;
        }
        const std::int64_t b = stack[--top];
        std::int64_t& a = stack[top - 1];
        std::int64_t r = 0;
        switch (i.code) {
            case Code::Add:
                if (__builtin_add_overflow(a, b, &r)) overflow("+", a, b);
                a = r;
                break;
            case Code::Sub:
                if (__builtin_sub_overflow(a, b, &r)) overflow("-", a, b);
                a = r;
                break;
            case Code::Mul:
                if (__builtin_mul_overflow(a, b, &r)) overflow("*", a, b);
                a = r;
                break;
            case Code::Div:
            case Code::Mod: {
                const char* what = i.code == Code::Div ? "/" : "%";
                if (b == 0) {
                    throw ExprError("division by zero: " + std::to_string(a) + " " + what + " 0");
                }
                if (a == std::numeric_limits<std::int64_t>::min() && b == -1) overflow(what, a, b);
                a = i.code == Code::Div ? a / b : a % b;
                break;
            }
            case Code::Less:
                a = a < b;
                break;
            case Code::LessEqual:
                a = a <= b;
                break;
            case Code::Greater:
                a = a > b;
                break;
            case Code::GreaterEqual:
                a = a >= b;
                break;
            case Code::Equal:
                a = a == b;
                break;
            case Code::NotEqual:
                a = a != b;
                break;
            case Code::And:
                a = (a != 0 && b != 0) ? 1 : 0;
                break;
            case Code::Or:
                a = (a != 0 || b != 0) ? 1 : 0;
                break;
            case Code::Min:
                a = std::min(a, b);
                break;
            case Code::Max:
                a = std::max(a, b);
                break;
            default:
                break;
        }
    }
    return stack[0];
}

}  // namespace npusim
