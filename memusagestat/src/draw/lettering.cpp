// SPDX-License-Identifier: MIT
#include "draw/lettering.h"

#include <glib.h>
#include <pango/pangocairo.h>

#include <memory>

namespace memusagestat {

namespace {

constexpr const char* kFamily = "DejaVu Sans";

// What a context letters with: one layout reused for every label (making one per label
// costs more than drawing it), and the weight in use.
struct Lettering {
    PangoLayout* layout = nullptr;
    FontWeight weight = FontWeight::regular;
    ~Lettering() {
        if (layout != nullptr) g_object_unref(layout);
    }
};

const cairo_user_data_key_t kLetteringKey{};

void forget(void* lettering) { delete static_cast<Lettering*>(lettering); }

Lettering& lettering_of(cairo_t* cr) {
    if (auto* found = static_cast<Lettering*>(cairo_get_user_data(cr, &kLetteringKey)))
        return *found;
    auto made = std::make_unique<Lettering>();
    made->layout = pango_cairo_create_layout(cr);
    PangoContext* context = pango_layout_get_context(made->layout);
    cairo_font_options_t* options = cairo_font_options_create();
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(context, options);
    cairo_font_options_destroy(options);
    pango_context_set_round_glyph_positions(context, FALSE);
    Lettering* lettering = made.release();
    cairo_set_user_data(cr, &kLetteringKey, lettering, forget);
    return *lettering;
}

// The layout holding `text` in the context's weight and size, placed for its transformation.
PangoLayout* laid_out(cairo_t* cr, const std::string& text) {
    Lettering& lettering = lettering_of(cr);
    pango_cairo_update_layout(cr, lettering.layout);
    cairo_matrix_t font;
    cairo_get_font_matrix(cr, &font);
    std::unique_ptr<PangoFontDescription, decltype(&pango_font_description_free)> description(
        pango_font_description_new(), pango_font_description_free);
    pango_font_description_set_family_static(description.get(), kFamily);
    pango_font_description_set_weight(description.get(), lettering.weight == FontWeight::bold
                                                             ? PANGO_WEIGHT_BOLD
                                                             : PANGO_WEIGHT_NORMAL);
    pango_font_description_set_absolute_size(description.get(), font.yy * PANGO_SCALE);
    pango_layout_set_font_description(lettering.layout, description.get());
    pango_layout_set_text(lettering.layout, text.data(), static_cast<int>(text.size()));
    return lettering.layout;
}

}  // namespace

void prepare_lettering(cairo_t* cr) {
    lettering_of(cr);
    use_face(cr, FontWeight::regular);
}

void use_face(cairo_t* cr, FontWeight weight) { lettering_of(cr).weight = weight; }

TextExtents measure_text(cairo_t* cr, const std::string& text) {
    PangoRectangle ink, logical;
    pango_layout_line_get_extents(pango_layout_get_line_readonly(laid_out(cr, text), 0), &ink,
                                  &logical);
    return {static_cast<double>(ink.x) / PANGO_SCALE,
            static_cast<double>(logical.width) / PANGO_SCALE};
}

int draw_text(cairo_t* cr, const std::string& text) {
    PangoLayout* layout = laid_out(cr, text);
    PangoLayoutLine* line = pango_layout_get_line_readonly(layout, 0);
    pango_cairo_show_layout_line(cr, line);
    PangoRectangle logical;
    pango_layout_line_get_extents(line, nullptr, &logical);
    cairo_rel_move_to(cr, static_cast<double>(logical.width) / PANGO_SCALE, 0);
    return pango_layout_get_unknown_glyphs_count(layout);
}

std::string with_valid_utf8(std::string_view text) {
    std::unique_ptr<gchar, decltype(&g_free)> valid(
        g_utf8_make_valid(text.data(), static_cast<gssize>(text.size())), g_free);
    return valid.get();
}

}  // namespace memusagestat
