// npusim_fuzz: a seeded mutation fuzzer over the shipped scenario and chip files. Each mutant
// goes through what `npusim run` does (parse, validate, estimate, and for small runs the
// simulation with the checker); every outcome must be one of the contract's: a ConfigError
// or UsageError (exit 2), a KernelError or a wrong program (exit 1), or a clean run (exit 0).
// Anything else (an InternalError, another exception, a run that does not end) is a failure
// and the mutant is written out for replay. Crashes are caught by the sanitizer build.
// --parse-only stops after parsing and validating (no estimate, no simulation): the scenario
// parser alone, fast enough for 100,000 inputs in CI's sanitizer job.
//
//   npusim_fuzz --configs configs --seed 1 --mutants 20000 --seconds 300 --out DIR
//   npusim_fuzz --configs configs --parse-only --mutants 100000 --min-mutants 100000
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "base/errors.h"
#include "sim/scenario/scenario.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

struct Seed {
    std::string name;  // file name, for replay files
    std::string text;
    bool chip = false;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Every JSON pointer of a document, containers included (the root is "").
void collect_pointers(const json& value, const std::string& at, std::vector<std::string>& out) {
    out.push_back(at);
    if (value.is_object()) {
        for (const auto& [key, child] : value.items()) {
            std::string escaped;
            for (char c : key) escaped += c == '~' ? "~0" : (c == '/' ? "~1" : std::string(1, c));
            collect_pointers(child, at + "/" + escaped, out);
        }
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
            collect_pointers(value[i], at + "/" + std::to_string(i), out);
    }
}

class Mutator final {
public:
    explicit Mutator(std::uint64_t seed) : m_rng(seed) {}

    std::string mutate(const std::string& text) {
        const int rounds = 1 + static_cast<int>(pick(3));
        std::string out = text;
        for (int i = 0; i < rounds; ++i)
            out = pick(5) == 0 ? mutate_text(out) : mutate_json(out, /*seed=*/i == 0);
        return out;
    }

private:
    std::uint64_t pick(std::uint64_t n) {
        return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(m_rng);
    }

    json interesting_value() {
        switch (pick(23)) {
            case 0:
                return 0;
            case 1:
                return 1;
            case 2:
                return -1;
            case 3:
                return std::uint64_t{1} << 31;
            case 4:
                return std::uint64_t{1} << 32;
            case 5:
                return std::uint64_t{1} << 63;
            case 6:
                return ~std::uint64_t{0};
            case 7:
                return 1e300;
            case 8:
                return -1e300;
            case 9:
                return 0.5;
            case 10:
                return "";
            case 11:
                return "x";
            case 12:
                return true;
            case 13:
                return nullptr;
            case 14:
                return json::array();
            case 15:
                return json::object();
            case 16:
                return std::string(4096, 'a');
            case 17:
                return 3;
            case 18:
                return 4096;
            case 19:
                return 1 << 20;
            case 20:
                return std::string("a\n\x1b[31mred\x01");
            case 21:  // the newer keys' values: a buffer file, a host op, a version
                switch (pick(4)) {
                    case 0:
                        return json{{"file", pick(2) == 0 ? "../scenario_data/ramp.npy"
                                                          : "../scenario_data/ramp.bin"}};
                    case 1:
                        return json{{"op", "launch"}, {"kernel", "busy"}, {"blocks", 1}};
                    case 2:
                        return json{{"file", "/dev/zero.bin"}};
                    default:
                        return 2;
                }
            default: {
                // Built inside out by moves: copying the growing value at each level made
                // this one case a sixth of the whole fuzz's time.
                json nested = 1;
                for (int i = 0; i < 300; ++i) {
                    json level = json::array();
                    level.push_back(std::move(nested));
                    nested = std::move(level);
                }
                return nested;
            }
        }
    }

    std::string mutate_json(const std::string& text, bool seed) {
        try {
            return mutate_json_unchecked(text, seed);
        } catch (const json::exception&) {
            return mutate_text(text);  // an edit nlohmann refuses: mutate the bytes instead
        }
    }

    /// A seed file parsed once with its pointers: parsing it again for every mutant was a
    /// third of the fuzzer's own time.
    struct Parsed {
        json doc;
        std::vector<std::string> pointers;
    };

    const Parsed& parsed(const std::string& text, bool seed, Parsed& scratch) {
        if (seed) {
            const auto found = m_seeds.find(text);
            if (found != m_seeds.end()) return found->second;
        }
        scratch.doc = json::parse(text, nullptr, false);
        scratch.pointers.clear();
        if (!scratch.doc.is_discarded()) collect_pointers(scratch.doc, "", scratch.pointers);
        if (!seed) return scratch;
        return m_seeds.emplace(text, std::move(scratch)).first->second;
    }

    std::string mutate_json_unchecked(const std::string& text, bool seed) {
        Parsed scratch;
        const Parsed& original = parsed(text, seed, scratch);
        if (original.doc.is_discarded()) return mutate_text(text);
        json doc = original.doc;
        const std::vector<std::string>& pointers = original.pointers;
        const json::json_pointer at(pointers[pick(pointers.size())]);
        json& node = doc[at];
        switch (pick(6)) {
            case 0:
                node = interesting_value();
                break;
            case 1:  // scale or nudge a number
                if (node.is_number()) {
                    const double factors[] = {0.0, 0.5, 2.0, 1000.0, 1e6, -1.0};
                    const double v = node.get<double>() * factors[pick(6)];
                    if (pick(2) == 0 && v >= 0 && v < 1.8e19) {
                        node = static_cast<std::uint64_t>(v) + pick(3);
                    } else {
                        node = v;
                    }
                } else {
                    node = interesting_value();
                }
                break;
            case 2:  // delete a key or an element
                if (!at.empty()) {
                    json& parent = doc[at.parent_pointer()];
                    if (parent.is_object()) {
                        parent.erase(at.back());
                    } else if (parent.is_array()) {
                        parent.erase(parent.begin() +
                                     static_cast<std::ptrdiff_t>(std::stoul(at.back())));
                    }
                }
                break;
            case 3:  // an unknown key, or a known key in the wrong place
                if (node.is_object()) {
                    static const char* const kKeys[] = {
                        "unknwon", "elements", "npusim_scenario", "file",     "init",  "op",
                        "host",    "buffers",  "shape",           "$comment", "stream"};
                    node[kKeys[pick(std::size(kKeys))]] = interesting_value();
                }
                break;
            case 4:  // a type confusion
                node = node.is_number() ? json(node.dump()) : json(pick(1000));
                break;
            default:  // a value copied from elsewhere in the document
                node = doc[json::json_pointer(pointers[pick(pointers.size())])];
                break;
        }
        std::string out = doc.dump(pick(2) == 0 ? -1 : 2);
        if (pick(8) == 0) {  // a duplicate key: JSON parsers silently keep the last one
            const auto brace = out.find('{');
            if (brace != std::string::npos) out.insert(brace + 1, "\"kernel\": \"vector_add\", ");
        }
        return out;
    }

    std::string mutate_text(std::string text) {
        if (text.empty()) return "{";
        const std::size_t at = pick(text.size());
        switch (pick(5)) {
            case 0:
                text[at] = static_cast<char>(pick(256));
                break;
            case 1:
                text.resize(at);
                break;
            case 2:
                text.insert(at, 1, static_cast<char>(pick(32)));
                break;
            case 3:
                text.insert(at, std::string(1 + pick(64), text[pick(text.size())]));
                break;
            default:
                text.erase(at, 1 + pick(16));
                break;
        }
        return text;
    }

    std::mt19937_64 m_rng;
    std::unordered_map<std::string, Parsed> m_seeds;
};

enum class Outcome { InputError, KernelError, Completed, Failure };

struct Counts {
    std::uint64_t mutants = 0, input_errors = 0, kernel_errors = 0, completed = 0, runs = 0,
                  failures = 0;
};

constexpr std::uint64_t kMaxFuzzedInstructions = 300'000;  // bigger runs: validated only
constexpr std::uint64_t kMaxFuzzedMemory = 512ull << 20;
constexpr int kRunSeconds = 30;  // a run still going after this is reported as a hang

/// Parses, validates and (when small and not `parse_only`) runs one scenario text; `dir`
/// holds its chip file.
Outcome try_scenario(const std::string& text, const fs::path& dir, bool parse_only, Counts& counts,
                     std::string& failure) {
    try {
        const npusim::Scenario scenario = npusim::parse_scenario(text, "mutant.json", dir);
        if (parse_only) return Outcome::Completed;
        npusim::check_scenario_memory(scenario, true, kMaxFuzzedMemory);
        if (npusim::scenario_needs(scenario).instructions.amount > kMaxFuzzedInstructions)
            return Outcome::InputError;  // valid but too big to run here: validated only
        ++counts.runs;
        std::atomic<bool> stop{false};
        std::atomic<bool> done{false};
        std::thread watchdog([&] {
            const auto deadline = Clock::now() + std::chrono::seconds(kRunSeconds);
            while (!done && Clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            if (!done) stop = true;
        });
        npusim::SimOptions options;
        options.stop_flag = &stop;
        npusim::ScenarioOutcome outcome;
        try {
            outcome = npusim::run_scenario(scenario, {}, true, nullptr, {}, options);
        } catch (...) {
            done = true;
            watchdog.join();
            throw;
        }
        done = true;
        watchdog.join();
        if (outcome.kernel.run.interrupted()) {
            failure = "the run did not end within " + std::to_string(kRunSeconds) + " s";
            return Outcome::Failure;
        }
        return Outcome::Completed;
    } catch (const npusim::ConfigError&) {
        return Outcome::InputError;
    } catch (const npusim::UsageError&) {
        return Outcome::InputError;
    } catch (const npusim::KernelError&) {
        return Outcome::KernelError;
    } catch (const std::exception& error) {
        failure = std::string("unexpected exception: ") + error.what();
        return Outcome::Failure;
    } catch (...) {
        failure = "a non-standard exception";
        return Outcome::Failure;
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"npusim_fuzz: seeded mutation fuzzing of scenario and chip files"};
    std::string configs = "configs";
    std::string out_dir = "fuzz-failures";
    std::uint64_t seed = 1;
    std::uint64_t mutants = 20'000;
    std::uint64_t min_mutants = 0;
    double seconds = 300;
    app.add_option("--configs", configs, "Folder with scenarios/ and chips/");
    app.add_option("--seed", seed, "Random seed (the same seed gives the same mutants)");
    app.add_option("--mutants", mutants, "Mutants to try");
    app.add_option("--min-mutants", min_mutants, "Fail if the time box ends before this many");
    app.add_option("--seconds", seconds, "Time box");
    app.add_option("--out", out_dir, "Where failing mutants are written");
    bool parse_only = false;
    app.add_flag("--parse-only", parse_only,
                 "Parse and validate only (no memory estimate, no simulation)");
    CLI11_PARSE(app, argc, argv);

    std::vector<Seed> seeds;
    for (const char* kind : {"scenarios", "chips"}) {
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(fs::path(configs) / kind))
            if (entry.path().extension() == ".json") files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files)
            seeds.push_back({file.filename().string(), read_file(file), kind[0] == 'c'});
    }
    if (seeds.empty()) {
        std::cerr << "npusim_fuzz: no seed files under " << configs << "\n";
        return 2;
    }
    // Mutated chips are run under a small scenario; mutated scenarios keep their chip files.
    const fs::path work = fs::temp_directory_path() / ("npusim_fuzz_" + std::to_string(::getpid()));
    fs::create_directories(work / "scenarios");
    fs::copy(fs::path(configs) / "chips", work / "chips", fs::copy_options::recursive);
    // Buffer files of the shipped scenarios ("init": {"file": "../scenario_data/..."}).
    if (fs::is_directory(fs::path(configs) / "scenario_data"))
        fs::copy(fs::path(configs) / "scenario_data", work / "scenario_data",
                 fs::copy_options::recursive);
    const std::string chip_scenario =
        R"({"chip": "mutant_chip.json", "kernel": "vector_add", "blocks": 4,
            "params": {"elements": 4096, "tile": 256, "buffers": 2}})";

    Mutator mutator(seed);
    Counts counts;
    const auto start = Clock::now();
    for (std::uint64_t i = 0; i < mutants; ++i) {
        if (std::chrono::duration<double>(Clock::now() - start).count() > seconds) break;
        const Seed& base = seeds[i % seeds.size()];
        const std::string mutant = mutator.mutate(base.text);
        std::string failure;
        Outcome outcome;
        if (base.chip) {
            std::ofstream(work / "scenarios" / "mutant_chip.json", std::ios::binary) << mutant;
            outcome = try_scenario(chip_scenario, work / "scenarios", parse_only, counts, failure);
        } else {
            outcome = try_scenario(mutant, work / "scenarios", parse_only, counts, failure);
        }
        ++counts.mutants;
        switch (outcome) {
            case Outcome::InputError:
                ++counts.input_errors;
                break;
            case Outcome::KernelError:
                ++counts.kernel_errors;
                break;
            case Outcome::Completed:
                ++counts.completed;
                break;
            case Outcome::Failure: {
                ++counts.failures;
                fs::create_directories(out_dir);
                const fs::path file =
                    fs::path(out_dir) / ("mutant_" + std::to_string(i) + "_" + base.name);
                std::ofstream(file, std::ios::binary) << mutant;
                std::cerr << "FAIL mutant " << i << " of " << base.name << " (" << file.string()
                          << "): " << failure << "\n";
                break;
            }
        }
    }
    fs::remove_all(work);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::cout << (parse_only ? "parser fuzz (seed " : "mutation fuzz (seed ") << seed
              << "): " << counts.mutants << " mutants in " << elapsed
              << " s: " << counts.input_errors << " input errors, " << counts.kernel_errors
              << " kernel errors, " << counts.completed << " clean runs (" << counts.runs
              << " simulated), " << counts.failures << " failures\n";
    if (counts.mutants < min_mutants) {
        std::cerr << "npusim_fuzz: only " << counts.mutants << " mutants in the time box (wanted "
                  << min_mutants << ")\n";
        return 1;
    }
    return counts.failures == 0 ? 0 : 1;
}
