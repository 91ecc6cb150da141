// SPDX-License-Identifier: MIT
#include "graph_request.h"

#include <sys/stat.h>

#include "memusagestat/graph.h"

namespace memusage {
namespace {

memusagestat::GraphOptions graph_options(const DriverOptions& options) {
    memusagestat::GraphOptions graph;
    graph.title = options.title;
    graph.time_based = options.time_based;
    graph.total = options.total;
    if (options.width) graph.width = *options.width;
    if (options.height) graph.height = *options.height;
    return graph;
}

}  // namespace

Status graph_request_error(const DriverOptions& options) {
    const memusagestat::GraphOptions graph = graph_options(options);
    Status size = memusagestat::picture_size_error(graph.width, graph.height);
    if (!size.ok()) return Failure{"cannot draw " + options.png_path + ": " + size.error()};
    return {};
}

GraphResult draw_requested_graph(const DriverOptions& options, const std::string& data_path) {
    // No file, or an empty one, means the collector never wrote: the program was not the one
    // -n names, or never started. There is nothing to draw, as with glibc's script.
    struct stat status {};
    if (::stat(data_path.c_str(), &status) != 0 || status.st_size == 0) {
        return {GraphOutcome::nothing_recorded,
                "no profile data was recorded, so " + options.png_path + " was not drawn"};
    }
    Status drawn = memusagestat::draw_graph(data_path, options.png_path, graph_options(options));
    if (!drawn.ok())
        return {GraphOutcome::failed, "cannot draw " + options.png_path + ": " + drawn.error()};
    return {};
}

}  // namespace memusage
