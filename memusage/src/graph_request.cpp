#include "graph_request.h"

#include <sys/stat.h>

#include "memusagestat/graph.h"

namespace memusage {

std::string draw_requested_graph(const DriverOptions& options, const std::string& data_path) {
    // No file, or an empty one, means the collector never wrote: the program was not the one
    // -n names, or never started. There is nothing to draw, as with glibc's script.
    struct stat status {};
    if (::stat(data_path.c_str(), &status) != 0 || status.st_size == 0) {
        return "no profile data was recorded, so " + options.png_path + " was not drawn";
    }
    memusagestat::GraphOptions graph;
    graph.title = options.title;
    graph.time_based = options.time_based;
    graph.total = options.total;
    if (options.width) graph.width = *options.width;
    if (options.height) graph.height = *options.height;
    std::string error = memusagestat::draw_graph(data_path, options.png_path, graph);
    if (!error.empty()) return "cannot draw " + options.png_path + ": " + error;
    return {};
}

}  // namespace memusage
