// SPDX-License-Identifier: MIT
// The outcome of a call that can fail, in memusagestat and the driver: success (with its
// value, for a Result), or the message that tells the user what failed. Such calls once
// returned a std::string, empty for success: a caller that forgot to look still compiled
// and carried on as if all had gone well, and the same type also carried text that was no
// error at all. Both types here are [[nodiscard]], so with -Werror an outcome dropped fails
// the build; a failure is made only by naming it (Failure{...}), never by converting a
// string. The standard's std::expected is C++23, beyond this project's compilers.
// Header-only and not used by the collector itself, which allocates nothing on its paths.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace memusage {

// A failure's message, given to a Status or a Result; the one way to make either fail.
struct Failure {
    std::string message;
};

class [[nodiscard]] Status {
  public:
    // Success.
    Status() = default;
    Status(Failure failure) : message_(std::move(failure.message)), failed_(true) {}

    bool ok() const { return !failed_; }
    // The message for the user; empty on success.
    const std::string& error() const { return message_; }

  private:
    std::string message_;
    bool failed_ = false;
};

template <typename T>
class [[nodiscard]] Result {
  public:
    Result(T value) : value_(std::move(value)) {}
    Result(Failure failure) : message_(std::move(failure.message)) {}

    bool ok() const { return value_.has_value(); }
    const std::string& error() const { return message_; }
    // Only after ok() said so.
    const T& value() const { return *value_; }
    T& value() { return *value_; }

  private:
    std::optional<T> value_;
    std::string message_;
};

}  // namespace memusage
