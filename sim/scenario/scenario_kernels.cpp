#include "sim/scenario/scenario_kernels.h"

#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

#include "base/config_diagnostics.h"
#include "sim/kernels/json_kernel.h"
// The types only: the library entry points are the loaded libraries'.
#define NPUSIM_KERNEL_LOADER
#include "base/json_choices.h"
#include "sim/kernels/kernel_registry.h"

namespace npusim {

namespace {

using json = nlohmann::json;
using kernel_registry::KernelEntry;

struct LoadedLibrary {
    std::string problem;  // why it cannot be used; empty when loaded
    const KernelEntry* first = nullptr;
};

// Loads `path` once per process; never unloads it (see the header).
const LoadedLibrary& load_library(const std::filesystem::path& path, const std::string& shown) {
    static std::mutex mutex;
    static std::map<std::string, LoadedLibrary> loaded;
    const std::lock_guard lock(mutex);
    std::error_code ignored;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ignored);
    const std::string key = canonical.empty() ? path.string() : canonical.string();
    if (const auto it = loaded.find(key); it != loaded.end()) return it->second;
    LoadedLibrary& library = loaded[key];
    const std::string name = single_quoted(shown);
    const std::filesystem::file_status status = std::filesystem::status(path, ignored);
    if (!std::filesystem::is_regular_file(status)) {
        const char* what = !std::filesystem::exists(status)        ? "no such file"
                           : std::filesystem::is_directory(status) ? "it is a directory"
                                                                   : "it is not a regular file";
        library.problem = "cannot load kernel library " + name + ": " + what + " (" +
                          printable(path.string()) + ")";
        return library;
    }
    // A name without a '/' would make dlopen search the system's library paths: always
    // name the file itself.
    const std::filesystem::path file =
        canonical.empty() ? std::filesystem::absolute(path, ignored) : canonical;
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = dlerror();
        library.problem = "cannot load kernel library " + name + ": " +
                          printable(error == nullptr ? "dlopen failed" : error);
        if (error != nullptr &&
            std::string_view(error).find("undefined symbol") != std::string::npos) {
            library.problem +=
                " (the program that loads kernel libraries must export npusim's symbols: "
                "CMake ENABLE_EXPORTS / -rdynamic; or the library was built against "
                "another npusim)";
        }
        return library;
    }
    const auto abi =
        reinterpret_cast<std::uint32_t (*)()>(dlsym(handle, "npusim_kernel_abi_version"));
    const auto version =
        reinterpret_cast<const char* (*)()>(dlsym(handle, "npusim_kernel_library_version"));
    const auto registry =
        reinterpret_cast<const void* (*)()>(dlsym(handle, "npusim_kernel_registry"));
    if (abi == nullptr || version == nullptr || registry == nullptr) {
        library.problem = name + " is not an npusim kernel library: it has no symbol " +
                          std::string(abi == nullptr       ? "npusim_kernel_abi_version"
                                      : version == nullptr ? "npusim_kernel_library_version"
                                                           : "npusim_kernel_registry") +
                          " (register its kernels with NPUSIM_REGISTER_KERNEL from "
                          "<npusim/sim/kernels/kernel_registry.h>)";
        return library;
    }
    const std::uint32_t their_abi = abi();
    const std::string their_version = printable(version() == nullptr ? "?" : version());
    if (their_abi != NPUSIM_KERNEL_ABI_VERSION || their_version != NPUSIM_VERSION_STRING) {
        library.problem = "kernel library " + name + " was built against npusim " + their_version +
                          " (kernel ABI " + std::to_string(their_abi) +
                          "); this is npusim " NPUSIM_VERSION_STRING " (kernel ABI " +
                          std::to_string(NPUSIM_KERNEL_ABI_VERSION) +
                          "): rebuild the library against this npusim";
        return library;
    }
    library.first = static_cast<const KernelEntry*>(registry());
    return library;
}

KernelDefinition kernel_of(const KernelEntry& entry, const std::string& name,
                           const std::string& shown_library) {
    KernelDefinition k;
    k.name = name;
    k.description = "C++ kernel " + entry.name + " from " + shown_library;
    for (const KernelParamSpec& p : entry.parameters)
        k.parameters.push_back({p.name, p.default_value, p.min, p.max, p.description});
    for (const kernel_registry::ArgumentInfo& a : entry.arguments) {
        // Sizes are the kernel's business: every argument must be bound to some buffer, and
        // the checker's memcheck reports accesses past its end.
        k.arguments.push_back(
            {a.name, a.dtype, a.description.empty() ? "GM buffer" : a.description,
             [](std::uint32_t, const KernelParams&) { return std::uint64_t{1}; }});
    }
    const KernelEntry* e = &entry;
    k.make_instance = [e](std::uint32_t, const KernelParams& params,
                          const KernelBindings& bindings) {
        kernel_registry::LaunchValues values;
        for (const kernel_registry::ArgumentInfo& a : e->arguments) {
            const auto it = bindings.find(a.name);
            values.addresses.push_back(it == bindings.end() ? 0 : it->second.address);
            values.bytes.push_back(it == bindings.end() ? 0 : it->second.bytes);
        }
        for (const KernelParamSpec& p : e->parameters) values.params.push_back(params.at(p.name));
        return KernelInstance{e->name, e->type, [e, values](Block& b) { e->invoke(b, values); }};
    };
    return k;
}

std::optional<KernelDefinition> read_library_kernel(const json& value, const std::string& name,
                                                    const std::string& pointer,
                                                    const std::filesystem::path& base_dir,
                                                    Diagnostics& diag) {
    check_keys(value, pointer, {"library", "kernel", "description"}, diag);
    const auto library = read_string(value.at("library"), pointer + "/library", diag);
    std::optional<std::string> symbol;
    if (!value.contains("kernel")) {
        diag.add(pointer + "/kernel", "missing: the name the library registers the kernel under");
    } else {
        symbol = read_string(value.at("kernel"), pointer + "/kernel", diag);
    }
    if (!library || !symbol) return std::nullopt;
    const std::filesystem::path path = std::filesystem::path(*library).is_absolute()
                                           ? std::filesystem::path(*library)
                                           : base_dir / *library;
    const LoadedLibrary& loaded = load_library(path, *library);
    if (!loaded.problem.empty()) {
        diag.add(pointer + "/library", loaded.problem);
        return std::nullopt;
    }
    std::vector<std::string> known;
    for (const KernelEntry* e = loaded.first; e != nullptr; e = e->next) {
        if (e->name == *symbol) {
            KernelDefinition k = kernel_of(*e, name, *library);
            if (value.contains("description")) {
                if (auto d = read_string(value.at("description"), pointer + "/description", diag))
                    k.description = *d;
            }
            return k;
        }
        known.insert(known.begin(), e->name);  // registration order
    }
    json_choices::unknown_name("kernel", *symbol, known, pointer + "/kernel", diag);
    diag.add(pointer + "/kernel", "(kernels the library " + single_quoted(*library) +
                                      " registers with NPUSIM_REGISTER_KERNEL)");
    return std::nullopt;
}

}  // namespace

ScenarioKernels read_scenario_kernels(const json& kernels, const std::string& origin,
                                      const std::filesystem::path& base_dir, Diagnostics& diag) {
    ScenarioKernels out;
    if (!require_object(kernels, "/kernels", diag)) return out;
    for (const auto& [name, value] : kernels.items()) {
        if (name == kCommentKey) continue;
        const std::string pointer = child_pointer("/kernels", name);
        if (find_builtin_kernel(name) != nullptr) {
            diag.add(pointer, "the name " + single_quoted(name) +
                                  " is a built-in kernel's; give this kernel another name");
            continue;
        }
        if (!require_object(value, pointer, diag)) continue;
        std::optional<KernelDefinition> kernel =
            value.contains("library") ? read_library_kernel(value, name, pointer, base_dir, diag)
                                      : read_json_kernel(value, name, pointer, origin, diag);
        if (kernel)
            out.by_name[name] = std::make_shared<const KernelDefinition>(std::move(*kernel));
    }
    return out;
}

}  // namespace npusim
