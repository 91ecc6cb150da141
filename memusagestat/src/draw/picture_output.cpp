// SPDX-License-Identifier: MIT
#include "draw/picture_output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "draw/lettering.h"
#include "output/whole_file.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

const cairo_user_data_key_t kOutputKey{};

std::string xml_escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

std::string cairo_failure(cairo_status_t status, const std::string& path) {
    return "cannot draw " + path + ": " + cairo_status_to_string(status);
}

}  // namespace

PictureFormat format_of(const std::string& path) {
    auto ends_with = [&](const char* suffix) {
        const std::string s(suffix);
        if (path.size() < s.size()) return false;
        return std::equal(
            s.begin(), s.end(), path.end() - static_cast<long>(s.size()),
            [](unsigned char a, unsigned char b) { return std::tolower(a) == std::tolower(b); });
    };
    if (ends_with(".svg")) return PictureFormat::svg;
    if (ends_with(".pdf")) return PictureFormat::pdf;
    return PictureFormat::png;
}

Status PictureOutput::open(const std::string& path, unsigned width, unsigned height,
                           const std::string& title) {
    path_ = path;
    format_ = format_of(path);
    if (format_ != PictureFormat::png) {
        file_.reset(std::fopen(path.c_str(), "wb"));
        if (file_ == nullptr) return Failure{cannot_write(path, errno)};
    }
    if (format_ == PictureFormat::svg)
        surface_.reset(cairo_svg_surface_create_for_stream(write_to_file, this, width, height));
    else if (format_ == PictureFormat::pdf)
        surface_.reset(cairo_pdf_surface_create_for_stream(write_to_file, this, width, height));
    else
        surface_.reset(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(width),
                                                  static_cast<int>(height)));
    if (cairo_surface_status(surface_.get()) != CAIRO_STATUS_SUCCESS)
        return Failure{cairo_failure(cairo_surface_status(surface_.get()), path)};
    if (format_ == PictureFormat::pdf) {
        cairo_pdf_surface_set_metadata(surface_.get(), CAIRO_PDF_METADATA_TITLE, title.c_str());
        cairo_pdf_surface_set_metadata(surface_.get(), CAIRO_PDF_METADATA_CREATOR, "memusagestat");
    }
    context_.reset(cairo_create(surface_.get()));
    cairo_set_user_data(context_.get(), &kOutputKey, this, nullptr);
    return {};
}

Status PictureOutput::finish(const std::vector<PngText>& png_texts) {
    const cairo_status_t drawn = cairo_status(context_.get());
    context_.reset();
    if (drawn != CAIRO_STATUS_SUCCESS) return Failure{cairo_failure(drawn, path_)};
    if (format_ != PictureFormat::png) {
        cairo_surface_finish(surface_.get());
        const cairo_status_t written = cairo_surface_status(surface_.get());
        // The reason of a failed write first: Cairo's own message does not say it.
        if (Status closed = closed_file(); !closed.ok()) return closed;
        if (written != CAIRO_STATUS_SUCCESS) return Failure{cairo_failure(written, path_)};
        return format_ == PictureFormat::svg ? add_text_layer() : Status();
    }
    return write_png(path_, surface_.get(), png_texts);
}

cairo_status_t PictureOutput::write_to_file(void* closure, const unsigned char* data,
                                            unsigned int length) {
    auto* output = static_cast<PictureOutput*>(closure);
    if (std::fwrite(data, 1, length, output->file_.get()) == length) return CAIRO_STATUS_SUCCESS;
    output->write_error_ = errno;
    return CAIRO_STATUS_WRITE_ERROR;
}

// Closes the SVG's or PDF's file; failing, the message of the write that failed (a
// buffered one fails only now).
Status PictureOutput::closed_file() {
    if (std::fclose(file_.release()) != 0 && write_error_ == 0) write_error_ = errno;
    if (write_error_ != 0) return Failure{cannot_write(path_, write_error_)};
    return {};
}

void show_text(cairo_t* cr, const std::string& text, const std::string& whole) {
    auto* output = static_cast<PictureOutput*>(cairo_get_user_data(cr, &kOutputKey));
    if (output != nullptr && output->format_ == PictureFormat::svg && !text.empty() &&
        cairo_has_current_point(cr)) {
        PictureOutput::TextRun run;
        cairo_get_matrix(cr, &run.place);
        cairo_get_current_point(cr, &run.x, &run.y);
        cairo_matrix_t font;
        cairo_get_font_matrix(cr, &font);
        run.size = font.yy;
        run.text = whole.empty() ? text : whole;
        output->text_runs_.push_back(std::move(run));
    }
    const int missing = draw_text(cr, text);
    if (output != nullptr) output->missing_glyphs_ += missing;
}

std::string PictureOutput::lettering_warning() const {
    if (missing_glyphs_ == 0) return {};
    return std::to_string(missing_glyphs_) +
           " characters of the picture's text have no installed font that can draw them and "
           "show as boxes (Debian's fonts-dejavu-core draws every label; fonts-wqy-microhei "
           "Chinese, fonts-noto-color-emoji emoji)";
}

Status PictureOutput::add_text_layer() {
    if (text_runs_.empty()) return {};
    std::string svg;
    {
        std::ifstream in(path_, std::ios::binary);
        svg.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t end = svg.rfind("</svg>");
    if (end == std::string::npos)
        return Failure{"cannot draw " + path_ + ": the SVG written is not whole"};
    std::string layer = "<g fill-opacity=\"0\" font-family=\"DejaVu Sans\">\n";
    for (const TextRun& run : text_runs_) {
        char place[256];
        const cairo_matrix_t& m = run.place;
        std::snprintf(place, sizeof place,
                      "<text transform=\"matrix(%g %g %g %g %g %g)\" x=\"%.1f\" y=\"%.1f\" "
                      "font-size=\"%.1f\">",
                      m.xx, m.yx, m.xy, m.yy, m.x0, m.y0, run.x, run.y, run.size);
        layer += place + xml_escaped(run.text) + "</text>\n";
    }
    layer += "</g>\n";
    svg.insert(end, layer);
    return write_whole_file(path_, svg);
}

}  // namespace memusagestat
