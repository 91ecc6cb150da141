#include "picture_output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <algorithm>
#include <cctype>

namespace memusagestat {

namespace {

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

std::string PictureOutput::open(const std::string& path, unsigned width, unsigned height,
                                const std::string& title) {
    path_ = path;
    format_ = format_of(path);
    if (format_ == PictureFormat::svg)
        surface_.reset(cairo_svg_surface_create(path.c_str(), width, height));
    else if (format_ == PictureFormat::pdf)
        surface_.reset(cairo_pdf_surface_create(path.c_str(), width, height));
    else
        surface_.reset(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(width),
                                                  static_cast<int>(height)));
    if (cairo_surface_status(surface_.get()) != CAIRO_STATUS_SUCCESS)
        return cairo_failure(cairo_surface_status(surface_.get()), path);
    if (format_ == PictureFormat::pdf) {
        cairo_pdf_surface_set_metadata(surface_.get(), CAIRO_PDF_METADATA_TITLE, title.c_str());
        cairo_pdf_surface_set_metadata(surface_.get(), CAIRO_PDF_METADATA_CREATOR, "memusagestat");
    }
    context_.reset(cairo_create(surface_.get()));
    return {};
}

std::string PictureOutput::finish(const std::vector<PngText>& png_texts) {
    const cairo_status_t drawn = cairo_status(context_.get());
    context_.reset();
    if (drawn != CAIRO_STATUS_SUCCESS) return cairo_failure(drawn, path_);
    if (format_ != PictureFormat::png) {
        cairo_surface_finish(surface_.get());
        if (cairo_surface_status(surface_.get()) != CAIRO_STATUS_SUCCESS)
            return cairo_failure(cairo_surface_status(surface_.get()), path_);
        return {};
    }
    return write_png(path_, surface_.get(), png_texts);
}

}  // namespace memusagestat
