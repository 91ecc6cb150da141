// SPDX-License-Identifier: MIT
#include "draw/png_writer.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "output/whole_file.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

struct PngJob {
    FILE* file;
    const unsigned char* pixels;  // Cairo ARGB32: native-endian 32-bit 0xAARRGGBB words
    int stride;
    int width;
    int height;
    png_text* texts;
    int text_count;
    png_byte* row;  // room for one RGB row
    char message[200];
    int write_error;  // the errno of a write that failed (a full disk, a file size limit)
};

void on_png_error(png_structp png, png_const_charp message) {
    auto* job = static_cast<PngJob*>(png_get_error_ptr(png));
    if (std::ferror(job->file)) job->write_error = errno;
    std::snprintf(job->message, sizeof job->message, "%s", message);
    png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// Only plain C data lives in this frame: libpng reports errors by longjmp, which must
// not skip a C++ destructor.
bool encode(PngJob& job) {
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &job, on_png_error, on_png_warning);
    if (png == nullptr) return false;
    png_infop info = png_create_info_struct(png);
    if (info == nullptr || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, job.file);
    png_set_IHDR(png, info, job.width, job.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // A graph is long runs of flat colour that deflate finds by itself: unfiltered rows
    // come out smaller than libpng's adaptive filtering, and the fastest deflate level
    // costs a few tens of kilobytes but saves more time than reading a 120 MB file takes.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_compression_level(png, 1);
    png_set_text(png, info, job.texts, job.text_count);
    png_write_info(png, info);
    for (int y = 0; y < job.height; ++y) {
        const auto* source = reinterpret_cast<const uint32_t*>(
            job.pixels + static_cast<std::ptrdiff_t>(y) * job.stride);
        png_byte* out = job.row;
        for (int x = 0; x < job.width; ++x) {
            *out++ = static_cast<png_byte>(source[x] >> 16);
            *out++ = static_cast<png_byte>(source[x] >> 8);
            *out++ = static_cast<png_byte>(source[x]);
        }
        png_write_row(png, job.row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

Status write_png(const std::string& path, cairo_surface_t* image,
                 const std::vector<PngText>& texts) {
    cairo_surface_flush(image);
    const int width = cairo_image_surface_get_width(image);
    std::vector<png_byte> row(static_cast<std::size_t>(width) * 3);
    std::vector<png_text> chunks(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
        chunks[i].key = const_cast<char*>(texts[i].key.c_str());
        chunks[i].text = const_cast<char*>(texts[i].text.c_str());
        chunks[i].text_length = texts[i].text.size();
    }

    FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return Failure{cannot_write(path, errno)};
    PngJob job{file,
               cairo_image_surface_get_data(image),
               cairo_image_surface_get_stride(image),
               width,
               cairo_image_surface_get_height(image),
               chunks.data(),
               static_cast<int>(chunks.size()),
               row.data(),
               {},
               0};
    const bool encoded = encode(job);
    const bool closed = std::fclose(file) == 0;
    if (!encoded && job.write_error != 0) return Failure{cannot_write(path, job.write_error)};
    if (!encoded) return Failure{"cannot write PNG file " + path + ": " + job.message};
    if (!closed) return Failure{cannot_write(path, errno)};
    return {};
}

}  // namespace memusagestat
