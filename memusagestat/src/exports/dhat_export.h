// SPDX-License-Identifier: MIT
// Valgrind's DHAT JSON (dhatFileVersion 2, mode "heap"), which DHAT's own viewer
// dh_view.html reads: one program point per shown site, its stack innermost first (the
// wrapper it allocated through, then the program's frames), with total bytes and blocks,
// bytes and blocks at the heap's peak and at exit, and, from an event recording, the
// blocks' lifetimes and the most the site held at once. Without a recording "bklt" is
// false: dh_view then shows totals only, and "verb" says why.
#pragma once

#include <string>
#include <vector>

#include "sites/shown_sites.h"
#include "sites/site_lifetimes.h"

namespace memusagestat {

// Times are in microseconds ("tu": "µs"; dh_view's rates per "Mtu" are then per second).
inline constexpr double kDhatShortLived = 1e-3;  // dh_view's "short-lived": 1 ms on average

// Why a file made from sampled sites has no lifetimes, whatever recording there is.
inline constexpr const char* kSampledNoLifetimes =
    "sites were sampled, and the recording has the sampled blocks only";

// lifetimes: null without an event recording, and then `no_lifetimes` says why (in "verb").
// command: "cmd" (the program's path when empty).
std::string dhat_json(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                      const RunLifetimes* lifetimes, const std::string& command,
                      const std::string& no_lifetimes = "no event recording",
                      double end_seconds = 0);

}  // namespace memusagestat
