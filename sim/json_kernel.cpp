#include "sim/json_kernel.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <source_location>

#include "base/config_diagnostics.h"
#include "base/errors.h"
#include "base/pipe_table.h"
#include "base/transaction.h"
#include "core/block.h"
#include "pipes/op_table.h"
#include "sim/json_kernel_expr.h"
#include "sim/scenario_names.h"

namespace npusim {

namespace {

using json = nlohmann::json;
using scenario_names::read_choice;
using scenario_names::read_number;
using scenario_names::unknown_name;

constexpr std::size_t kMaxOps = 100'000;
// Ops (and loop iterations) one block may execute: a loop bound gone wrong stops with a
// message instead of running for hours.
constexpr std::uint64_t kMaxStepsPerBlock = 10'000'000;
constexpr std::size_t kMaxNesting = 32;

// Slots every expression can read; parameters and loop variables follow.
constexpr std::uint32_t kBlockIdx = 0;
constexpr std::uint32_t kBlockNum = 1;
constexpr std::uint32_t kSubBlockIdx = 2;
constexpr std::uint32_t kIsCube = 3;  // 1 on the cube core (AIC), 0 on a vector core (AIV)
constexpr std::uint32_t kFixedSlots = 4;

constexpr std::pair<std::string_view, DType> kDTypes[] = {
    {"float16", DType::F16}, {"float32", DType::F32}, {"int32", DType::I32}, {"int8", DType::I8}};
constexpr std::pair<std::string_view, MemSpace> kLocalSpaces[] = {{"UB", MemSpace::UB},
                                                                  {"L1", MemSpace::L1},
                                                                  {"L0A", MemSpace::L0A},
                                                                  {"L0B", MemSpace::L0B},
                                                                  {"L0C", MemSpace::L0C}};
constexpr std::pair<std::string_view, Pipe> kPipes[] = {
    {"S", Pipe::S},       {"V", Pipe::V},       {"M", Pipe::M},     {"MTE1", Pipe::MTE1},
    {"MTE2", Pipe::MTE2}, {"MTE3", Pipe::MTE3}, {"FIX", Pipe::FIX}, {"ALL", Pipe::ALL}};
constexpr std::pair<std::string_view, KernelType> kTypes[] = {
    {"AIV_ONLY", KernelType::AIV_ONLY},       {"AIC_ONLY", KernelType::AIC_ONLY},
    {"MIX_AIV_1_0", KernelType::MIX_AIV_1_0}, {"MIX_AIC_1_0", KernelType::MIX_AIC_1_0},
    {"MIX_AIC_1_1", KernelType::MIX_AIC_1_1}, {"MIX_AIC_1_2", KernelType::MIX_AIC_1_2}};
constexpr std::pair<std::string_view, SyncAllScope> kScopes[] = {{"all", SyncAllScope::All},
                                                                 {"vector", SyncAllScope::Vector}};

enum class Kind : std::uint8_t {
    Alloc,
    Copy,
    Binary,      // add sub mul max min
    WithScalar,  // adds muls
    Unary,       // exp relu reduce_sum
    Fill,
    Cast,
    Mmad,
    Load,
    Store,
    ScalarWork,
    SetFlag,
    WaitFlag,
    PipeBarrier,
    SyncAll,
    SoftSyncAll,
    CrossCoreSetFlag,
    CrossCoreWaitFlag,
    Loop,
    If,
};

// The "op" names: the Block API's spelling, then the op table's (vendor) spelling.
constexpr std::pair<std::string_view, std::pair<Kind, Op>> kOpNames[] = {
    {"copy", {Kind::Copy, Op::Copy}},
    {"add", {Kind::Binary, Op::Add}},
    {"sub", {Kind::Binary, Op::Sub}},
    {"mul", {Kind::Binary, Op::Mul}},
    {"max", {Kind::Binary, Op::Max}},
    {"min", {Kind::Binary, Op::Min}},
    {"adds", {Kind::WithScalar, Op::Adds}},
    {"muls", {Kind::WithScalar, Op::Muls}},
    {"exp", {Kind::Unary, Op::Exp}},
    {"relu", {Kind::Unary, Op::Relu}},
    {"reduce_sum", {Kind::Unary, Op::ReduceSum}},
    {"fill", {Kind::Fill, Op::Fill}},
    {"cast", {Kind::Cast, Op::Cast}},
    {"mmad", {Kind::Mmad, Op::Mmad}},
    {"load", {Kind::Load, Op::ScalarLoad}},
    {"store", {Kind::Store, Op::ScalarStore}},
    {"scalar", {Kind::ScalarWork, Op::ScalarLoad}},
    {"set_flag", {Kind::SetFlag, Op::SetFlag}},
    {"wait_flag", {Kind::WaitFlag, Op::WaitFlag}},
    {"pipe_barrier", {Kind::PipeBarrier, Op::PipeBarrier}},
    {"sync_all", {Kind::SyncAll, Op::SyncAll}},
    {"cross_core_set_flag", {Kind::CrossCoreSetFlag, Op::CrossCoreSetFlag}},
    {"cross_core_wait_flag", {Kind::CrossCoreWaitFlag, Op::CrossCoreWaitFlag}},
    {"DataCopy", {Kind::Copy, Op::Copy}},
    {"Add", {Kind::Binary, Op::Add}},
    {"Sub", {Kind::Binary, Op::Sub}},
    {"Mul", {Kind::Binary, Op::Mul}},
    {"Max", {Kind::Binary, Op::Max}},
    {"Min", {Kind::Binary, Op::Min}},
    {"Adds", {Kind::WithScalar, Op::Adds}},
    {"Muls", {Kind::WithScalar, Op::Muls}},
    {"Exp", {Kind::Unary, Op::Exp}},
    {"Relu", {Kind::Unary, Op::Relu}},
    {"ReduceSum", {Kind::Unary, Op::ReduceSum}},
    {"Duplicate", {Kind::Fill, Op::Fill}},
    {"Cast", {Kind::Cast, Op::Cast}},
    {"Mmad", {Kind::Mmad, Op::Mmad}},
    {"ScalarLoad", {Kind::Load, Op::ScalarLoad}},
    {"ScalarStore", {Kind::Store, Op::ScalarStore}},
    {"SetFlag", {Kind::SetFlag, Op::SetFlag}},
    {"WaitFlag", {Kind::WaitFlag, Op::WaitFlag}},
    {"PipeBarrier", {Kind::PipeBarrier, Op::PipeBarrier}},
    {"SyncAll", {Kind::SyncAll, Op::SyncAll}},
    {"CrossCoreSetFlag", {Kind::CrossCoreSetFlag, Op::CrossCoreSetFlag}},
    {"CrossCoreWaitFlag", {Kind::CrossCoreWaitFlag, Op::CrossCoreWaitFlag}},
};

// A buffer the body names: a GM argument or a local allocation.
struct BufferDecl {
    std::string name;
    bool global = true;
    MemSpace space = MemSpace::GM;
    DType dtype = DType::F32;
};

struct OperandRef {
    std::uint32_t buffer = 0;
    IntExpr offset{0};  // elements
};

struct Node {
    Kind kind = Kind::Copy;
    Op op = Op::Copy;
    std::string pointer;
    std::source_location where;
    std::vector<OperandRef> operands;  // dst first, then sources
    std::vector<IntExpr> exprs;        // count; m n k; ids, modes, cycles; loop from to step
    double scalar = 0.0;
    bool accumulate = false;
    Pipe pipe_a = Pipe::S;  // set/wait_flag src, pipe_barrier, cross-core set pipe
    Pipe pipe_b = Pipe::S;  // set/wait_flag dst
    SyncAllScope scope = SyncAllScope::All;
    std::uint32_t target = 0;  // Alloc: its buffer; Loop: its variable's slot
    std::vector<Node> body;    // Loop body, If then
    std::vector<Node> other;   // If else
};

struct Program {
    std::string kernel;
    KernelType type = KernelType::AIV_ONLY;
    std::vector<BufferDecl> buffers;  // arguments first (in name order)
    std::vector<std::string> params;  // slot kFixedSlots + i
    std::uint32_t slot_count = kFixedSlots;
    std::vector<Node> body;
    std::string location_prefix;  // "file.json#"
};

// ---- reading ----------------------------------------------------------------------------

class Reader {
public:
    Reader(Program& program, Diagnostics& diag) : m_program(program), m_diag(diag) {
        m_scope["block_idx"] = kBlockIdx;
        m_scope["block_num"] = kBlockNum;
        m_scope["sub_block_idx"] = kSubBlockIdx;
        m_scope["is_cube"] = kIsCube;
    }

    void add_param(const std::string& name, std::uint32_t slot) { m_scope[name] = slot; }
    void add_buffer(const std::string& name, std::uint32_t index) { m_buffers[name] = index; }

    void read_body(const json& body, const std::string& pointer, std::vector<Node>& out,
                   std::size_t depth) {
        if (!body.is_array()) {
            m_diag.add(pointer, "expected an array of ops, got " + describe_json(body));
            return;
        }
        if (depth > kMaxNesting) {
            m_diag.add(pointer, "loops and ifs nested deeper than " + std::to_string(kMaxNesting));
            return;
        }
        for (std::size_t i = 0; i < body.size(); ++i) {
            if (++m_ops > kMaxOps) {
                m_diag.add(pointer, "more than " + std::to_string(kMaxOps) + " ops in the kernel");
                return;
            }
            Node node;
            if (read_node(body[i], child_pointer(pointer, i), node, depth))
                out.push_back(std::move(node));
        }
    }

private:
    std::optional<IntExpr> expr(const json& value, const std::string& pointer) {
        if (value.is_number_integer()) {
            if (value.is_number_unsigned() &&
                value.get<std::uint64_t>() >
                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                m_diag.add(pointer, "integer larger than 9223372036854775807");
                return std::nullopt;
            }
            return IntExpr(value.get<std::int64_t>());
        }
        if (!value.is_string()) {
            m_diag.add(pointer, "expected an integer or an integer expression (a string), got " +
                                    describe_json(value));
            return std::nullopt;
        }
        std::string error;
        auto e = IntExpr::parse(
            value.get_ref<const std::string&>(),
            [this](std::string_view name) -> std::optional<std::uint32_t> {
                const auto it = m_scope.find(std::string(name));
                if (it == m_scope.end()) return std::nullopt;
                return it->second;
            },
            error);
        if (!e) {
            std::string names;
            for (const auto& [name, slot] : m_scope) names += (names.empty() ? "" : ", ") + name;
            m_diag.add(pointer, "bad expression " + single_quoted(value.get<std::string>()) + ": " +
                                    error + " (names here: " + names + ")");
            return std::nullopt;
        }
        // A constant expression is evaluated now: its errors are the file's, not the run's.
        if (e->slots_used().empty()) {
            try {
                return IntExpr(e->evaluate({}));
            } catch (const ExprError& error) {
                m_diag.add(pointer, error.what());
                return std::nullopt;
            }
        }
        return e;
    }

    std::optional<IntExpr> required_expr(const json& op, const std::string& pointer,
                                         std::string_view key) {
        if (!op.contains(key)) {
            m_diag.add(child_pointer(pointer, key), "missing: an integer or expression");
            return std::nullopt;
        }
        return expr(op.at(key), child_pointer(pointer, key));
    }

    std::optional<OperandRef> operand(const json& op, const std::string& pointer,
                                      std::string_view key) {
        const std::string at = child_pointer(pointer, key);
        if (!op.contains(key)) {
            m_diag.add(at, "missing: a buffer name or {\"buffer\": name, \"offset\": elements}");
            return std::nullopt;
        }
        const json& value = op.at(key);
        const json* name = &value;
        OperandRef ref;
        if (value.is_object()) {
            check_keys(value, at, {"buffer", "offset"}, m_diag);
            if (!value.contains("buffer")) {
                m_diag.add(at + "/buffer", "missing: the buffer's name");
                return std::nullopt;
            }
            name = &value.at("buffer");
            if (value.contains("offset")) {
                auto offset = expr(value.at("offset"), at + "/offset");
                if (!offset) return std::nullopt;
                ref.offset = std::move(*offset);
            }
        } else if (!value.is_string()) {
            m_diag.add(at,
                       "expected a buffer name or {\"buffer\": name, \"offset\": elements}, "
                       "got " +
                           describe_json(value));
            return std::nullopt;
        }
        const std::string name_at = value.is_object() ? at + "/buffer" : at;
        const auto text = read_string(*name, name_at, m_diag);
        if (!text) return std::nullopt;
        const auto it = m_buffers.find(*text);
        if (it == m_buffers.end()) {
            std::vector<std::string> known;
            for (const auto& [n, index] : m_buffers) known.push_back(n);
            unknown_name("buffer", *text, known, name_at, m_diag);
            m_diag.add(name_at,
                       "(a kernel names its \"args\" and the buffers an earlier "
                       "\"alloc\" made)");
            return std::nullopt;
        }
        ref.buffer = it->second;
        return ref;
    }

    const BufferDecl& decl(const OperandRef& r) const { return m_program.buffers[r.buffer]; }

    // A scalar operand must fit the destination's element type (a conversion out of range
    // would be undefined).
    bool fits(const Node& n, double value, const std::string& at) {
        const DType dtype = decl(n.operands[0]).dtype;
        const auto range = [&](double lo, double hi, bool whole, const char* what) {
            if (value >= lo && value <= hi && (!whole || value == std::floor(value))) return true;
            m_diag.add(at, "expected " + std::string(what) + " for a " +
                               std::string(to_string(dtype)) + " buffer, got " +
                               describe_json(json(value)));
            return false;
        };
        switch (dtype) {
            case DType::F16:
                return range(-65504.0, 65504.0, false, "-65504..65504");
            case DType::F32:
                return range(-3.4028234663852886e38, 3.4028234663852886e38, false,
                             "a finite float32");
            case DType::I32:
                return range(-2147483648.0, 2147483647.0, true, "a whole number in int32 range");
            case DType::I8:
                return range(-128.0, 127.0, true, "a whole number -128..127");
        }
        return false;
    }

    bool require_local(const Node& n, std::size_t i, const std::string& pointer,
                       std::string_view key) {
        if (!decl(n.operands[i]).global) return true;
        m_diag.add(child_pointer(pointer, key),
                   "buffer " + single_quoted(decl(n.operands[i]).name) + " is in GM; " +
                       std::string(to_string(n.op)) + " takes local buffers (an \"alloc\")");
        return false;
    }

    bool same_dtypes(const Node& n, const std::string& pointer) {
        for (const OperandRef& r : n.operands) {
            if (decl(r).dtype != decl(n.operands[0]).dtype) {
                m_diag.add(pointer, "operands of " + std::string(to_string(n.op)) +
                                        " differ in type: " + decl(n.operands[0]).name + " is " +
                                        std::string(to_string(decl(n.operands[0]).dtype)) + ", " +
                                        decl(r).name + " is " +
                                        std::string(to_string(decl(r).dtype)));
                return false;
            }
        }
        return true;
    }

    bool read_operands(const json& op, const std::string& pointer, Node& n,
                       std::initializer_list<std::string_view> keys) {
        bool ok = true;
        for (std::string_view key : keys) {
            if (auto r = operand(op, pointer, key)) {
                n.operands.push_back(std::move(*r));
            } else {
                ok = false;
            }
        }
        return ok;
    }

    bool read_exprs(const json& op, const std::string& pointer, Node& n,
                    std::initializer_list<std::string_view> keys) {
        bool ok = true;
        for (std::string_view key : keys) {
            if (auto e = required_expr(op, pointer, key)) {
                n.exprs.push_back(std::move(*e));
            } else {
                ok = false;
            }
        }
        return ok;
    }

    bool read_alloc(const json& op, const std::string& pointer, Node& n) {
        check_keys(op, pointer, {"alloc", "space", "dtype", "count"}, m_diag);
        n.kind = Kind::Alloc;
        const auto name = read_string(op.at("alloc"), pointer + "/alloc", m_diag);
        std::optional<MemSpace> space;
        std::optional<DType> dtype;
        if (!op.contains("space")) {
            m_diag.add(pointer + "/space", "missing: UB, L1, L0A, L0B or L0C");
        } else {
            space = read_choice(op.at("space"), pointer + "/space", kLocalSpaces, m_diag);
        }
        if (!op.contains("dtype")) {
            m_diag.add(pointer + "/dtype", "missing: float16, float32, int32 or int8");
        } else {
            dtype = read_choice(op.at("dtype"), pointer + "/dtype", kDTypes, m_diag);
        }
        const bool count = read_exprs(op, pointer, n, {"count"});
        if (!name || !space || !dtype || !count) return false;
        if (m_buffers.contains(*name) || m_scope.contains(*name)) {
            m_diag.add(pointer + "/alloc", "the name " + single_quoted(*name) +
                                               " is taken (buffer names are unique in a kernel)");
            return false;
        }
        n.target = static_cast<std::uint32_t>(m_program.buffers.size());
        m_program.buffers.push_back({*name, false, *space, *dtype});
        m_buffers[*name] = n.target;
        return true;
    }

    bool read_loop(const json& value, const std::string& pointer, Node& n, std::size_t depth) {
        n.kind = Kind::Loop;
        if (!require_object(value, pointer, m_diag)) return false;
        check_keys(value, pointer, {"var", "from", "to", "step", "body"}, m_diag);
        const bool bounds = read_exprs(value, pointer, n, {"from", "to"});
        if (value.contains("step")) {
            auto step = expr(value.at("step"), pointer + "/step");
            if (!step) return false;
            n.exprs.push_back(std::move(*step));
        } else {
            n.exprs.emplace_back(1);
        }
        if (!value.contains("var")) {
            m_diag.add(pointer + "/var", "missing: the loop variable's name");
            return false;
        }
        const auto var = read_string(value.at("var"), pointer + "/var", m_diag);
        if (!var || !bounds) return false;
        if (var->empty() ||
            !(std::isalpha(static_cast<unsigned char>((*var)[0])) || (*var)[0] == '_') ||
            var->find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                std::string::npos ||
            *var == "min" || *var == "max") {
            m_diag.add(pointer + "/var",
                       "expected a name (letters, digits, _), got " + single_quoted(*var));
            return false;
        }
        if (m_scope.contains(*var) || m_buffers.contains(*var)) {
            m_diag.add(pointer + "/var", "the name " + single_quoted(*var) + " is taken here");
            return false;
        }
        n.target = m_program.slot_count++;
        if (!value.contains("body")) {
            m_diag.add(pointer + "/body", "missing: the ops to repeat");
            return false;
        }
        m_scope[*var] = n.target;
        read_body(value.at("body"), pointer + "/body", n.body, depth + 1);
        m_scope.erase(*var);
        return true;
    }

    bool read_if(const json& op, const std::string& pointer, Node& n, std::size_t depth) {
        n.kind = Kind::If;
        check_keys(op, pointer, {"if", "then", "else"}, m_diag);
        auto condition = expr(op.at("if"), pointer + "/if");
        if (!op.contains("then")) m_diag.add(pointer + "/then", "missing: the ops to run if true");
        if (op.contains("then")) read_body(op.at("then"), pointer + "/then", n.body, depth + 1);
        if (op.contains("else")) read_body(op.at("else"), pointer + "/else", n.other, depth + 1);
        if (!condition) return false;
        n.exprs.push_back(std::move(*condition));
        return true;
    }

    std::optional<Pipe> pipe(const json& op, const std::string& pointer, std::string_view key) {
        if (!op.contains(key)) {
            m_diag.add(child_pointer(pointer, key),
                       "missing: a pipe (S, V, M, MTE1, MTE2, MTE3, FIX)");
            return std::nullopt;
        }
        return read_choice(op.at(key), child_pointer(pointer, key), kPipes, m_diag);
    }

    std::optional<double> number(const json& op, const std::string& pointer, std::string_view key) {
        if (!op.contains(key)) {
            m_diag.add(child_pointer(pointer, key), "missing: a number");
            return std::nullopt;
        }
        return read_number(op.at(key), child_pointer(pointer, key), m_diag);
    }

    bool read_instruction(const json& op, const std::string& pointer, Node& n) {
        const auto entry = read_choice(op.at("op"), pointer + "/op", kOpNames, m_diag);
        if (!entry) return false;
        n.kind = entry->first;
        n.op = entry->second;
        const auto keys = [&](std::initializer_list<std::string_view> allowed) {
            std::vector<std::string_view> all{"op"};
            all.insert(all.end(), allowed.begin(), allowed.end());
            check_keys(op, pointer, all, m_diag);
        };
        switch (n.kind) {
            case Kind::Copy: {
                keys({"dst", "src", "count"});
                if (!(read_operands(op, pointer, n, {"dst", "src"}) &
                      read_exprs(op, pointer, n, {"count"})))
                    return false;
                if (decl(n.operands[0]).global && decl(n.operands[1]).global) {
                    m_diag.add(pointer, "copy from GM to GM: one side must be a local buffer");
                    return false;
                }
                return same_dtypes(n, pointer);
            }
            case Kind::Binary:
                keys({"dst", "src0", "src1", "count"});
                if (!(read_operands(op, pointer, n, {"dst", "src0", "src1"}) &
                      read_exprs(op, pointer, n, {"count"})))
                    return false;
                return require_local(n, 0, pointer, "dst") & require_local(n, 1, pointer, "src0") &
                           require_local(n, 2, pointer, "src1") &&
                       same_dtypes(n, pointer);
            case Kind::WithScalar: {
                keys({"dst", "src", "scalar", "count"});
                const auto s = number(op, pointer, "scalar");
                if (!(read_operands(op, pointer, n, {"dst", "src"}) &
                      read_exprs(op, pointer, n, {"count"})) ||
                    !s)
                    return false;
                n.scalar = *s;
                return require_local(n, 0, pointer, "dst") & require_local(n, 1, pointer, "src") &&
                       same_dtypes(n, pointer) && fits(n, *s, pointer + "/scalar");
            }
            case Kind::Unary:
                keys({"dst", "src", "count"});
                if (!(read_operands(op, pointer, n, {"dst", "src"}) &
                      read_exprs(op, pointer, n, {"count"})))
                    return false;
                if (!(require_local(n, 0, pointer, "dst") & require_local(n, 1, pointer, "src") &&
                      same_dtypes(n, pointer)))
                    return false;
                if (n.op == Op::Exp && (decl(n.operands[0]).dtype == DType::I32 ||
                                        decl(n.operands[0]).dtype == DType::I8)) {
                    m_diag.add(pointer, "exp takes float16 or float32 buffers");
                    return false;
                }
                return true;
            case Kind::Fill: {
                keys({"dst", "value", "count"});
                const auto v = number(op, pointer, "value");
                if (!(read_operands(op, pointer, n, {"dst"}) &
                      read_exprs(op, pointer, n, {"count"})) ||
                    !v)
                    return false;
                n.scalar = *v;
                return require_local(n, 0, pointer, "dst") && fits(n, *v, pointer + "/value");
            }
            case Kind::Cast:
                keys({"dst", "src", "count"});
                if (!(read_operands(op, pointer, n, {"dst", "src"}) &
                      read_exprs(op, pointer, n, {"count"})))
                    return false;
                return require_local(n, 0, pointer, "dst") & require_local(n, 1, pointer, "src");
            case Kind::Mmad: {
                keys({"dst", "a", "b", "m", "n", "k", "accumulate"});
                if (!(read_operands(op, pointer, n, {"dst", "a", "b"}) &
                      read_exprs(op, pointer, n, {"m", "n", "k"})))
                    return false;
                if (op.contains("accumulate")) {
                    if (!op.at("accumulate").is_boolean()) {
                        m_diag.add(pointer + "/accumulate", "expected true or false, got " +
                                                                describe_json(op.at("accumulate")));
                        return false;
                    }
                    n.accumulate = op.at("accumulate").get<bool>();
                }
                if (decl(n.operands[0]).dtype != DType::F32 ||
                    decl(n.operands[1]).dtype != DType::F16 ||
                    decl(n.operands[2]).dtype != DType::F16) {
                    m_diag.add(pointer, "mmad takes float16 a and b and a float32 dst");
                    return false;
                }
                return require_local(n, 0, pointer, "dst") & require_local(n, 1, pointer, "a") &
                       require_local(n, 2, pointer, "b");
            }
            case Kind::Load:
                keys({"src"});
                return read_operands(op, pointer, n, {"src"});
            case Kind::Store: {
                keys({"dst", "value"});
                const auto v = number(op, pointer, "value");
                if (!read_operands(op, pointer, n, {"dst"}) || !v) return false;
                n.scalar = *v;
                return fits(n, *v, pointer + "/value");
            }
            case Kind::ScalarWork:
                keys({"cycles"});
                return read_exprs(op, pointer, n, {"cycles"});
            case Kind::SetFlag:
            case Kind::WaitFlag: {
                keys({"src", "dst", "id"});
                const auto src = pipe(op, pointer, "src");
                const auto dst = pipe(op, pointer, "dst");
                if (!read_exprs(op, pointer, n, {"id"}) || !src || !dst) return false;
                n.pipe_a = *src;
                n.pipe_b = *dst;
                return true;
            }
            case Kind::PipeBarrier: {
                keys({"pipe"});
                const auto p = pipe(op, pointer, "pipe");
                if (!p) return false;
                n.pipe_a = *p;
                return true;
            }
            case Kind::SyncAll: {
                if (op.contains("gm_workspace") || op.contains("ub_workspace") ||
                    op.contains("cores")) {
                    keys({"gm_workspace", "ub_workspace", "cores"});
                    n.kind = Kind::SoftSyncAll;
                    n.op = Op::SoftSyncAll;
                    if (!(read_operands(op, pointer, n, {"gm_workspace", "ub_workspace"}) &
                          read_exprs(op, pointer, n, {"cores"})))
                        return false;
                    for (std::size_t i = 0; i < 2; ++i) {
                        if (decl(n.operands[i]).dtype != DType::I32) {
                            m_diag.add(pointer + (i == 0 ? "/gm_workspace" : "/ub_workspace"),
                                       "a soft SyncAll workspace is an int32 buffer");
                            return false;
                        }
                    }
                    if (!decl(n.operands[0]).global) {
                        m_diag.add(pointer + "/gm_workspace", "must be a GM argument");
                        return false;
                    }
                    if (decl(n.operands[1]).space != MemSpace::UB) {
                        m_diag.add(pointer + "/ub_workspace", "must be a UB buffer");
                        return false;
                    }
                    return true;
                }
                keys({"scope"});
                if (op.contains("scope")) {
                    const auto s = read_choice(op.at("scope"), pointer + "/scope", kScopes, m_diag);
                    if (!s) return false;
                    n.scope = *s;
                }
                return true;
            }
            case Kind::CrossCoreSetFlag: {
                keys({"mode", "pipe", "id"});
                const auto p = pipe(op, pointer, "pipe");
                if (!read_exprs(op, pointer, n, {"mode", "id"}) || !p) return false;
                n.pipe_a = *p;
                return true;
            }
            case Kind::CrossCoreWaitFlag:
                keys({"id"});
                return read_exprs(op, pointer, n, {"id"});
            default:
                return false;
        }
    }

    bool read_node(const json& op, const std::string& pointer, Node& n, std::size_t depth) {
        n.pointer = pointer;
        n.where = synthetic_location(m_program.location_prefix + pointer);
        if (!require_object(op, pointer, m_diag)) return false;
        if (op.contains("alloc")) return read_alloc(op, pointer, n);
        if (op.contains("loop")) {
            check_keys(op, pointer, {"loop"}, m_diag);
            return read_loop(op.at("loop"), pointer + "/loop", n, depth);
        }
        if (op.contains("if")) return read_if(op, pointer, n, depth);
        if (!op.contains("op")) {
            m_diag.add(pointer,
                       "expected an op: {\"op\": ...}, {\"alloc\": ...}, {\"loop\": ...} "
                       "or {\"if\": ...}");
            return false;
        }
        return read_instruction(op, pointer, n);
    }

    Program& m_program;
    Diagnostics& m_diag;
    std::map<std::string, std::uint32_t> m_scope;    // names expressions can read
    std::map<std::string, std::uint32_t> m_buffers;  // names operands can use
    std::size_t m_ops = 0;
};

// ---- running ----------------------------------------------------------------------------

struct RuntimeBuffer {
    std::uint64_t address = 0;  // bytes (GM address or offset in the local space)
    std::uint64_t count = 0;    // elements
    bool ready = false;         // GM: bound; local: its alloc ran
};

template <class F>
void with_element(DType dtype, F&& f) {
    switch (dtype) {
        case DType::F16:
            return f(half{});
        case DType::F32:
            return f(float{});
        case DType::I32:
            return f(std::int32_t{});
        case DType::I8:
            return f(std::int8_t{});
    }
}

class Interpreter {
public:
    Interpreter(const Program& program, Block& block, const std::vector<RuntimeBuffer>& arguments,
                const std::vector<std::int64_t>& params)
        : m_program(program), m_block(block), m_slots(program.slot_count, 0) {
        m_slots[kBlockIdx] = block.block_idx();
        m_slots[kBlockNum] = block.block_num();
        m_slots[kSubBlockIdx] = block.sub_block_idx();
        m_slots[kIsCube] = block.core_type() == CoreType::Cube ? 1 : 0;
        for (std::size_t i = 0; i < params.size(); ++i) m_slots[kFixedSlots + i] = params[i];
        m_buffers.resize(program.buffers.size());
        for (std::size_t i = 0; i < arguments.size(); ++i) m_buffers[i] = arguments[i];
    }

    void run(const std::vector<Node>& body) {
        for (const Node& n : body) execute(n);
    }

private:
    [[noreturn]] void fail(const Node& n, const std::string& what) const {
        throw KernelError("kernel '" + m_program.kernel + "' block " +
                          std::to_string(m_block.block_idx()) + " at " + format_location(n.where) +
                          ": " + what);
    }

    std::int64_t value(const Node& n, const IntExpr& e) const {
        try {
            return e.evaluate(m_slots);
        } catch (const ExprError& error) {
            fail(n, "'" + e.text() + "': " + error.what());
        }
    }
    std::uint64_t unsigned_value(const Node& n, std::size_t i, const char* what) const {
        const std::int64_t v = value(n, n.exprs[i]);
        if (v < 0) fail(n, std::string(what) + " is " + std::to_string(v) + ", expected >= 0");
        return static_cast<std::uint64_t>(v);
    }
    std::uint32_t small_value(const Node& n, std::size_t i, const char* what) const {
        const std::uint64_t v = unsigned_value(n, i, what);
        if (v > std::numeric_limits<std::uint32_t>::max())
            fail(n, std::string(what) + " is " + std::to_string(v) + ", expected < 2^32");
        return static_cast<std::uint32_t>(v);
    }

    // The operand's buffer from its element offset on: address and remaining elements.
    RuntimeBuffer resolve(const Node& n, const OperandRef& r) const {
        const BufferDecl& d = m_program.buffers[r.buffer];
        const RuntimeBuffer& b = m_buffers[r.buffer];
        if (!b.ready) fail(n, "buffer '" + d.name + "' is used before its alloc ran");
        const std::int64_t offset = value(n, r.offset);
        if (offset < 0 || static_cast<std::uint64_t>(offset) > b.count) {
            fail(n, "offset " + std::to_string(offset) + " is outside buffer '" + d.name + "' (" +
                        std::to_string(b.count) + " elements)");
        }
        const auto off = static_cast<std::uint64_t>(offset);
        return {b.address + off * size_of(d.dtype), b.count - off, true};
    }
    template <class T>
    LocalTensor<T> local(const Node& n, std::size_t i) const {
        const OperandRef& r = n.operands[i];
        const RuntimeBuffer b = resolve(n, r);
        return {m_program.buffers[r.buffer].space, b.address, b.count};
    }
    template <class T>
    GlobalTensor<T> global(const Node& n, std::size_t i) const {
        const RuntimeBuffer b = resolve(n, n.operands[i]);
        return {b.address, b.count};
    }
    DType dtype(const Node& n, std::size_t i) const {
        return m_program.buffers[n.operands[i].buffer].dtype;
    }
    bool is_global(const Node& n, std::size_t i) const {
        return m_program.buffers[n.operands[i].buffer].global;
    }

    void copy(const Node& n, std::uint64_t count) {
        with_element(dtype(n, 0), [&]<class T>(T) {
            if (is_global(n, 0)) {
                m_block.copy(global<T>(n, 0), local<T>(n, 1), count, n.where);
            } else if (is_global(n, 1)) {
                m_block.copy(local<T>(n, 0), global<T>(n, 1), count, n.where);
            } else {
                m_block.copy(local<T>(n, 0), local<T>(n, 1), count, n.where);
            }
        });
    }

    void vector(const Node& n, std::uint64_t count) {
        with_element(dtype(n, 0), [&]<class T>(T) {
            switch (n.op) {
                case Op::Add:
                    return m_block.add(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Sub:
                    return m_block.sub(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Mul:
                    return m_block.mul(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Max:
                    return m_block.max(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Min:
                    return m_block.min(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Adds:
                    return m_block.adds(local<T>(n, 0), local<T>(n, 1), static_cast<T>(n.scalar),
                                        count, n.where);
                case Op::Muls:
                    return m_block.muls(local<T>(n, 0), local<T>(n, 1), static_cast<T>(n.scalar),
                                        count, n.where);
                case Op::Exp:
                    if constexpr (FloatElement<T>) {
                        return m_block.exp(local<T>(n, 0), local<T>(n, 1), count, n.where);
                    }
                    return;
                case Op::Relu:
                    return m_block.relu(local<T>(n, 0), local<T>(n, 1), count, n.where);
                case Op::ReduceSum:
                    return m_block.reduce_sum(local<T>(n, 0), local<T>(n, 1), count, n.where);
                case Op::Fill:
                    return m_block.fill(local<T>(n, 0), static_cast<T>(n.scalar), count, n.where);
                default:
                    return;
            }
        });
    }

    void execute(const Node& n) {
        step(n);
        switch (n.kind) {
            case Kind::Alloc: {
                const BufferDecl& d = m_program.buffers[n.target];
                const std::uint64_t count = unsigned_value(n, 0, "count");
                with_element(d.dtype, [&]<class T>(T) {
                    const LocalTensor<T> t = m_block.alloc<T>(d.space, count, n.where);
                    m_buffers[n.target] = {t.address, t.count, true};
                });
                return;
            }
            case Kind::Copy:
                return copy(n, unsigned_value(n, 0, "count"));
            case Kind::Binary:
            case Kind::WithScalar:
            case Kind::Unary:
            case Kind::Fill:
                return vector(n, unsigned_value(n, 0, "count"));
            case Kind::Cast: {
                const std::uint64_t count = unsigned_value(n, 0, "count");
                with_element(dtype(n, 0), [&]<class D>(D) {
                    with_element(dtype(n, 1), [&]<class S>(S) {
                        m_block.cast(local<D>(n, 0), local<S>(n, 1), count, n.where);
                    });
                });
                return;
            }
            case Kind::Mmad:
                m_block.mmad(local<float>(n, 0), local<half>(n, 1), local<half>(n, 2),
                             small_value(n, 0, "m"), small_value(n, 1, "n"), small_value(n, 2, "k"),
                             n.accumulate, n.where);
                return;
            case Kind::Load:
                with_element(dtype(n, 0), [&]<class T>(T) {
                    if (is_global(n, 0)) {
                        (void)m_block.load(global<T>(n, 0), 0, n.where);
                    } else {
                        (void)m_block.load(local<T>(n, 0), 0, n.where);
                    }
                });
                return;
            case Kind::Store:
                with_element(dtype(n, 0), [&]<class T>(T) {
                    if (is_global(n, 0)) {
                        m_block.store(global<T>(n, 0), 0, static_cast<T>(n.scalar), n.where);
                    } else {
                        m_block.store(local<T>(n, 0), 0, static_cast<T>(n.scalar), n.where);
                    }
                });
                return;
            case Kind::ScalarWork:
                m_block.scalar_work(unsigned_value(n, 0, "cycles"), n.where);
                return;
            case Kind::SetFlag:
                m_block.set_flag(n.pipe_a, n.pipe_b, small_value(n, 0, "id"), n.where);
                return;
            case Kind::WaitFlag:
                m_block.wait_flag(n.pipe_a, n.pipe_b, small_value(n, 0, "id"), n.where);
                return;
            case Kind::PipeBarrier:
                m_block.pipe_barrier(n.pipe_a, n.where);
                return;
            case Kind::SyncAll:
                m_block.sync_all(n.scope, n.where);
                return;
            case Kind::SoftSyncAll:
                m_block.sync_all(global<std::int32_t>(n, 0), local<std::int32_t>(n, 1),
                                 small_value(n, 0, "cores"), n.where);
                return;
            case Kind::CrossCoreSetFlag:
                m_block.cross_core_set_flag(small_value(n, 0, "mode"), n.pipe_a,
                                            small_value(n, 1, "id"), n.where);
                return;
            case Kind::CrossCoreWaitFlag:
                m_block.cross_core_wait_flag(small_value(n, 0, "id"), n.where);
                return;
            case Kind::Loop: {
                const std::int64_t from = value(n, n.exprs[0]);
                const std::int64_t to = value(n, n.exprs[1]);
                const std::int64_t stride = value(n, n.exprs[2]);
                if (stride <= 0) fail(n, "step is " + std::to_string(stride) + ", expected > 0");
                for (std::int64_t i = from; i < to;) {
                    step(n);
                    m_slots[n.target] = i;
                    run(n.body);
                    if (__builtin_add_overflow(i, stride, &i)) break;
                }
                return;
            }
            case Kind::If:
                run(value(n, n.exprs[0]) != 0 ? n.body : n.other);
                return;
        }
    }

    void step(const Node& n) {
        if (++m_steps > kMaxStepsPerBlock) {
            fail(n, "the block executed more than " + std::to_string(kMaxStepsPerBlock) +
                        " ops and loop iterations (a loop bound too large?)");
        }
    }

    const Program& m_program;
    Block& m_block;
    std::vector<std::int64_t> m_slots;
    std::vector<RuntimeBuffer> m_buffers;
    std::uint64_t m_steps = 0;
};

// ---- checks for a launch ----------------------------------------------------------------

// Expressions that read only parameters (and block_num, where it is known before the run)
// are the same for every block: evaluate them for the launch, so that their errors are the
// scenario's (exit 2), not the run's.
void check_static(const std::vector<Node>& body, const std::vector<std::int64_t>& slots,
                  bool block_num_known, std::vector<std::pair<std::string, std::string>>& out) {
    for (const Node& n : body) {
        const auto check = [&](const IntExpr& e) {
            for (std::uint32_t s : e.slots_used()) {
                if (s == kBlockIdx || s == kSubBlockIdx || s == kIsCube || s >= slots.size())
                    return;
                if (s == kBlockNum && !block_num_known) return;
            }
            try {
                (void)e.evaluate(slots);
            } catch (const ExprError& error) {
                out.push_back({n.pointer, "'" + e.text() + "': " + error.what()});
            }
        };
        for (const IntExpr& e : n.exprs) check(e);
        for (const OperandRef& r : n.operands) check(r.offset);
        check_static(n.body, slots, block_num_known, out);
        check_static(n.other, slots, block_num_known, out);
    }
}

}  // namespace

std::optional<BuiltinKernel> read_json_kernel(const json& value, const std::string& name,
                                              const std::string& pointer, const std::string& origin,
                                              Diagnostics& diag) {
    if (!require_object(value, pointer, diag)) return std::nullopt;
    const std::uint64_t problems_before = diag.size();
    check_keys(value, pointer, {"description", "type", "args", "params", "body"}, diag);
    auto program = std::make_shared<Program>();
    program->kernel = name;
    program->location_prefix = origin + "#";
    BuiltinKernel kernel;
    kernel.name = name;
    kernel.description = "JSON kernel (" + origin + "#" + pointer + ")";
    if (value.contains("description")) {
        if (auto d = read_string(value.at("description"), pointer + "/description", diag))
            kernel.description = *d;
    }
    if (!value.contains("type")) {
        diag.add(pointer + "/type",
                 "missing: the kernel type (AIV_ONLY, AIC_ONLY, MIX_AIC_1_2, ...)");
    } else if (auto t = read_choice(value.at("type"), pointer + "/type", kTypes, diag)) {
        program->type = *t;
    }
    Reader reader(*program, diag);
    if (value.contains("args")) {
        const json& args = value.at("args");
        if (require_object(args, pointer + "/args", diag)) {
            for (const auto& [arg, type] : args.items()) {
                if (arg == kCommentKey) continue;
                const std::string at = child_pointer(pointer + "/args", arg);
                const auto dtype = read_choice(type, at, kDTypes, diag);
                if (!dtype) continue;
                reader.add_buffer(arg, static_cast<std::uint32_t>(program->buffers.size()));
                program->buffers.push_back({arg, true, MemSpace::GM, *dtype});
                KernelArgument a;
                a.name = arg;
                a.dtype = *dtype;
                a.description = std::string(to_string(*dtype)) + " GM buffer";
                a.bytes = [](std::uint32_t, const KernelParams&) { return std::uint64_t{1}; };
                kernel.arguments.push_back(std::move(a));
            }
        }
    }
    if (value.contains("params")) {
        const json& params = value.at("params");
        if (require_object(params, pointer + "/params", diag)) {
            for (const auto& [param, default_value] : params.items()) {
                if (param == kCommentKey) continue;
                const std::string at = child_pointer(pointer + "/params", param);
                if (param == "block_idx" || param == "block_num" || param == "sub_block_idx" ||
                    param == "is_cube" || param == "min" || param == "max") {
                    diag.add(at, "the name " + single_quoted(param) + " is reserved");
                    continue;
                }
                const auto v = read_unsigned(default_value, at, diag);
                if (!v) continue;
                if (!check_range(v->value, 0, std::numeric_limits<std::int64_t>::max(), "", at,
                                 diag))
                    continue;
                reader.add_param(param, program->slot_count++);
                program->params.push_back(param);
                kernel.parameters.push_back(
                    {param, v->value, 0,
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
                     "JSON kernel parameter"});
            }
        }
    }
    if (!value.contains("body")) {
        diag.add(pointer + "/body", "missing: the kernel's ops");
    } else {
        reader.read_body(value.at("body"), pointer + "/body", program->body, 0);
    }
    if (diag.size() != problems_before) return std::nullopt;

    kernel.check = [program](std::uint32_t blocks, const KernelParams& params) {
        // block_num is known before the run where one core type runs the kernel.
        const std::uint32_t vector = vector_cores_per_block(program->type);
        const std::uint32_t cube = cube_cores_per_block(program->type);
        std::vector<std::int64_t> slots(kFixedSlots, 0);
        slots[kBlockNum] = static_cast<std::int64_t>(blocks) * std::max(vector, cube);
        for (const std::string& p : program->params)
            slots.push_back(static_cast<std::int64_t>(params.at(p)));
        std::vector<std::pair<std::string, std::string>> out;
        check_static(program->body, slots, vector == 0 || cube == 0, out);
        return out;
    };
    kernel.make_instance = [program](std::uint32_t, const KernelParams& params,
                                     const KernelBindings& bindings) {
        std::vector<RuntimeBuffer> arguments;
        for (const BufferDecl& d : program->buffers) {
            if (!d.global) continue;
            const auto it = bindings.find(d.name);
            if (it == bindings.end()) {
                arguments.push_back({});
            } else {
                arguments.push_back(
                    {it->second.address, it->second.bytes / size_of(d.dtype), true});
            }
        }
        std::vector<std::int64_t> values;
        for (const std::string& p : program->params)
            values.push_back(static_cast<std::int64_t>(params.at(p)));
        return KernelInstance{program->kernel, program->type,
                              [program, arguments, values](Block& b) {
                                  Interpreter(*program, b, arguments, values).run(program->body);
                              }};
    };
    return kernel;
}

}  // namespace npusim
