#include "sim/kernels/json_kernel_reader.h"

#include <limits>
#include <map>

#include "base/config_diagnostics.h"
#include "base/json_choices.h"
#include "base/pipe_table.h"
#include "pipes/op_table.h"

namespace npusim::json_kernel_detail {

namespace {

using json = nlohmann::json;
using json_choices::read_choice;
using json_choices::read_number;
using json_choices::unknown_name;

constexpr std::size_t kMaxOps = 100'000;
constexpr std::size_t kMaxNesting = 32;

constexpr std::pair<std::string_view, MemSpace> kLocalSpaces[] = {{"UB", MemSpace::UB},
                                                                  {"L1", MemSpace::L1},
                                                                  {"L0A", MemSpace::L0A},
                                                                  {"L0B", MemSpace::L0B},
                                                                  {"L0C", MemSpace::L0C}};
constexpr std::pair<std::string_view, Pipe> kPipes[] = {
    {"S", Pipe::S},       {"V", Pipe::V},       {"M", Pipe::M},     {"MTE1", Pipe::MTE1},
    {"MTE2", Pipe::MTE2}, {"MTE3", Pipe::MTE3}, {"FIX", Pipe::FIX}, {"ALL", Pipe::ALL}};
constexpr std::pair<std::string_view, SyncAllScope> kScopes[] = {{"all", SyncAllScope::All},
                                                                 {"vector", SyncAllScope::Vector}};

class Reader {
public:
    /// Expressions can read the fixed slots and the program's parameters; operands can name
    /// its buffers (the arguments, so far).
    Reader(Program& program, Diagnostics& diag) : m_program(program), m_diag(diag) {
        m_scope["block_idx"] = kBlockIdx;
        m_scope["block_num"] = kBlockNum;
        m_scope["sub_block_idx"] = kSubBlockIdx;
        m_scope["is_cube"] = kIsCube;
        for (std::size_t i = 0; i < program.params.size(); ++i)
            m_scope[program.params[i]] = kFixedSlots + static_cast<std::uint32_t>(i);
        for (std::size_t i = 0; i < program.buffers.size(); ++i)
            m_buffers[program.buffers[i].name] = static_cast<std::uint32_t>(i);
    }

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
            default:  // JSON kernels declare only the four types of kDTypes
                break;
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
                keys({"dst", "src", "count", "bypass_l2"});
                if (!(read_operands(op, pointer, n, {"dst", "src"}) &
                      read_exprs(op, pointer, n, {"count"})))
                    return false;
                if (decl(n.operands[0]).global && decl(n.operands[1]).global) {
                    m_diag.add(pointer, "copy from GM to GM: one side must be a local buffer");
                    return false;
                }
                if (op.contains("bypass_l2")) {  // GlobalTensor::SetL2CacheHint(DISABLE)
                    const json& bypass = op.at("bypass_l2");
                    if (!bypass.is_boolean()) {
                        m_diag.add(pointer + "/bypass_l2",
                                   "expected true or false, got " + describe_json(bypass));
                        return false;
                    }
                    if (bypass.get<bool>() && !decl(n.operands[1]).global) {
                        m_diag.add(pointer + "/bypass_l2",
                                   "the L2 bypass hint applies to a copy that reads GM; this "
                                   "copy's src is a local buffer");
                        return false;
                    }
                    n.bypass_l2 = bypass.get<bool>();
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
            case Kind::SetAtomic: {
                keys({"atomic", "dtype"});
                if (!op.contains("atomic")) {
                    m_diag.add(pointer + "/atomic", "missing: add, max, min or none");
                    return false;
                }
                const auto a =
                    read_choice(op.at("atomic"), pointer + "/atomic", kAtomicOps, m_diag);
                if (!a) return false;
                n.atomic = *a;
                if (op.contains("dtype")) {
                    const auto t = read_choice(op.at("dtype"), pointer + "/dtype", kDTypes, m_diag);
                    if (!t) return false;
                    n.dtype = *t;
                } else if (n.atomic != AtomicOp::None) {
                    m_diag.add(pointer + "/dtype", "missing: float16, float32, int32 or int8");
                    return false;
                }
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

}  // namespace

void read_json_kernel_body(const nlohmann::json& body, const std::string& pointer, Program& program,
                           Diagnostics& diag) {
    Reader(program, diag).read_body(body, pointer, program.body, 0);
}

}  // namespace npusim::json_kernel_detail
