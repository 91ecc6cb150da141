// SPDX-License-Identifier: MIT
// Loads the report module (report_module.h) beside the collector, on the first call only;
// the live view's site names come from it too.
#include "report_module.h"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "collector_location.h"
#include "commit_id.h"  // generated at every build: MEMUSAGE_COMMIT

#ifndef MEMUSAGE_BIN_TO_LIB
#error "MEMUSAGE_BIN_TO_LIB must name the library directory relative to the binary directory"
#endif
#ifndef MEMUSAGE_VERSION
#define MEMUSAGE_VERSION "unknown"
#endif

namespace memusage {
namespace {

constexpr const char* kReportBuild = MEMUSAGE_VERSION " " MEMUSAGE_COMMIT;

Result<const ReportFunctions*> load() {
    // Beside the collector the build or the install put beside the driver: the module
    // belongs to the driver, not to whichever collector MEMUSAGE_LIBRARY names.
    std::error_code error;
    std::filesystem::path driver = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error)
        return Failure{"cannot find where memusage itself is (/proc/self/exe: " + error.message() +
                       "), so not its report module either"};
    const std::string path =
        std::filesystem::path(collector_path_beside(driver.string(), MEMUSAGE_BIN_TO_LIB))
            .replace_filename(kReportModuleFileName)
            .string();
    const std::string cannot = "cannot load the drawing and report module " + path + ": ";
    // Never unloaded: the functions, and the objects they return, live as long as the driver.
    void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
        const char* why = ::dlerror();
        return Failure{cannot + (why ? why : "unknown error")};
    }
    auto entry = reinterpret_cast<ReportModuleEntry>(::dlsym(module, kReportModuleEntry));
    const ReportFunctions* functions = entry ? entry() : nullptr;
    if (functions == nullptr)
        return Failure{cannot + "it has no " + kReportModuleEntry + " (not memusage's module)"};
    if (functions->build == nullptr || std::strcmp(functions->build, kReportBuild) != 0 ||
        functions->options_size != sizeof(DriverOptions))
        return Failure{cannot + "it was built with memusage " +
                       (functions->build ? functions->build : "unknown") + ", this memusage is " +
                       kReportBuild + " (reinstall memusage)"};
    return functions;
}

}  // namespace

Result<const ReportFunctions*> report_functions() {
    static const Result<const ReportFunctions*> loaded = load();
    return loaded;
}

namespace live {

// The driver loaded the module before the view started (it needs it for --live and --watch),
// so the error is for a caller that did not.
std::unique_ptr<StackNaming> stack_naming(pid_t pid) {
    const Result<const ReportFunctions*> functions = report_functions();
    if (!functions.ok()) throw std::runtime_error(functions.error());
    return functions.value()->stack_naming(pid);
}

}  // namespace live
}  // namespace memusage
