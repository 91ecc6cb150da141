// SPDX-License-Identifier: MIT
#include <algorithm>

#include "live/stack_naming.h"
#include "sites/process_modules.h"
#include "sites/site_names.h"
#include "sites/symbolizer.h"

namespace memusage::live {
namespace {

// As the sites report names a site: memusagestat's symbolizer and frame folding.
class SymbolNaming final : public StackNaming {
  public:
    explicit SymbolNaming(pid_t pid) : pid_(pid) {}

    void read_modules() override {
        symbolizer_.reset();  // it points into the modules
        modules_ = memusagestat::process_modules(pid_);
        symbolizer_ = std::make_unique<memusagestat::Symbolizer>(modules_);
    }

    std::string name_of(const std::vector<uint64_t>& stack, bool& resolved) override {
        std::vector<memusagestat::SourceFrame> frames;
        resolved = true;
        for (uint64_t address : stack) {
            const auto& expanded = symbolizer_->frames_of(address);
            if (expanded.empty() || expanded.front().module.empty()) resolved = false;
            frames.insert(frames.end(), expanded.begin(), expanded.end());
        }
        return memusagestat::shown_site_label(frames);
    }

  private:
    pid_t pid_;
    std::vector<memusagestat::SitesModule> modules_;
    std::unique_ptr<memusagestat::Symbolizer> symbolizer_;
};

}  // namespace

std::unique_ptr<StackNaming> symbol_naming(pid_t pid) {
    return std::make_unique<SymbolNaming>(pid);
}

}  // namespace memusage::live
