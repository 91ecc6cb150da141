#include "graph_fonts.h"

#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <mutex>
#include <string>

namespace memusagestat {

namespace {

// Debian and Ubuntu, Fedora, Arch, then a local install.
constexpr const char* kFontDirectories[] = {
    "/usr/share/fonts/truetype/dejavu/",
    "/usr/share/fonts/dejavu-sans-fonts/",
    "/usr/share/fonts/TTF/",
    "/usr/local/share/fonts/",
};

// One FreeType library for the whole process: faces handed to Cairo may live in its
// caches until exit, and must not outlive the library.
FT_Library freetype() {
    static FT_Library library = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        if (FT_Init_FreeType(&library) != 0) library = nullptr;
    });
    return library;
}

const cairo_user_data_key_t kFaceKey{};

void done_face(void* face) { FT_Done_Face(static_cast<FT_Face>(face)); }

cairo_font_face_t* face_from_file(const char* file_name) {
    FT_Library library = freetype();
    if (library == nullptr) return nullptr;
    for (const char* directory : kFontDirectories) {
        const std::string path = std::string(directory) + file_name;
        FT_Face face = nullptr;
        if (FT_New_Face(library, path.c_str(), 0, &face) != 0) continue;
        cairo_font_face_t* cairo_face = cairo_ft_font_face_create_for_ft_face(face, 0);
        // Cairo tells us when it is done with the face; only then may FreeType free it.
        if (cairo_font_face_set_user_data(cairo_face, &kFaceKey, face, done_face) !=
            CAIRO_STATUS_SUCCESS) {
            cairo_font_face_destroy(cairo_face);
            FT_Done_Face(face);
            continue;
        }
        return cairo_face;
    }
    return nullptr;
}

}  // namespace

cairo_font_face_t* graph_font(FontWeight weight) {
    const bool bold = weight == FontWeight::bold;
    if (cairo_font_face_t* face = face_from_file(bold ? "DejaVuSans-Bold.ttf" : "DejaVuSans.ttf"))
        return face;
    return cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                                      bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
}

}  // namespace memusagestat
