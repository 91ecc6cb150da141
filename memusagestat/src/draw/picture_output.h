// SPDX-License-Identifier: MIT
// Where a picture goes: a Cairo surface chosen by the output file's extension (.svg and
// .pdf as vectors, anything else a PNG written through libpng with its text chunks).
#pragma once

#include <cairo.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "draw/png_writer.h"
#include "memusage/status.h"

namespace memusagestat {

enum class PictureFormat { png, svg, pdf };

PictureFormat format_of(const std::string& path);

// draw_text, and for an SVG also the words as text: Cairo's SVG surface draws letters
// as shapes, so a reader's search, a screen reader and a test would find no words in it.
// An SVG gets them as an invisible text layer over the letters (as scanned PDFs do);
// `whole` is what the layer says when `text` is cut to fit (empty: `text`).
void show_text(cairo_t* cr, const std::string& text, const std::string& whole = {});

class PictureOutput {
  public:
    // Cairo keeps this object's address (the file's write callback): it never moves.
    PictureOutput() = default;
    PictureOutput(const PictureOutput&) = delete;
    PictureOutput& operator=(const PictureOutput&) = delete;

    // Creates the surface (the SVG or PDF file is created now); failing, a message for the
    // user. `title` goes into the PDF's metadata.
    memusage::Status open(const std::string& path, unsigned width, unsigned height,
                          const std::string& title);
    cairo_t* context() const { return context_.get(); }
    PictureFormat format() const { return format_; }

    // Ends the drawing and writes the file (PNG: with these text chunks); failing, a
    // message for the user.
    memusage::Status finish(const std::vector<PngText>& png_texts);

    // A warning for the user when some of the text drawn had no font to draw it, else empty.
    std::string lettering_warning() const;

  private:
    struct TextRun {
        cairo_matrix_t place;  // user space to the page (rotated for vertical labels)
        double x, y, size;     // in user space
        std::string text;
    };
    friend void show_text(cairo_t* cr, const std::string& text, const std::string& whole);
    static cairo_status_t write_to_file(void* closure, const unsigned char* data,
                                        unsigned int length);
    memusage::Status closed_file();
    memusage::Status add_text_layer();

    std::string path_;
    std::vector<TextRun> text_runs_;
    int missing_glyphs_ = 0;
    PictureFormat format_ = PictureFormat::png;
    // An SVG's or PDF's file, which Cairo writes through write_to_file: a write that fails
    // (a full disk, a file size limit) keeps its errno here for the message.
    std::unique_ptr<std::FILE, decltype(&std::fclose)> file_{nullptr, std::fclose};
    int write_error_ = 0;
    std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface_{
        nullptr, cairo_surface_destroy};
    std::unique_ptr<cairo_t, decltype(&cairo_destroy)> context_{nullptr, cairo_destroy};
};

}  // namespace memusagestat
