// The faces the graph is lettered in: DejaVu Sans, regular and bold.
#pragma once

#include <cairo.h>

namespace memusagestat {

enum class FontWeight { regular, bold };

// A new reference to the face, loaded straight from the DejaVu file when it is found in
// the usual places (asking fontconfig costs more than drawing a small graph), else
// through fontconfig by name. Never null; release with cairo_font_face_destroy.
cairo_font_face_t* graph_font(FontWeight weight);

}  // namespace memusagestat
