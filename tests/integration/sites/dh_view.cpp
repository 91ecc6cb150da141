// SPDX-License-Identifier: MIT
#include "dh_view.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace sites_test {
namespace {

const std::string kViewer = DHAT_VIEWER_DIR;  // holds dh_view.js (Debian's valgrind package)

// dh_view.js's own loading, after FileReader has read the file: parse, build, display.
std::string viewer_page(const std::string& json) {
    std::string embedded = json;
    for (size_t at = 0; (at = embedded.find("</", at)) != std::string::npos; at += 3)
        embedded.replace(at, 2, "<\\/");
    return "<!DOCTYPE html>\n<html><head><meta charset=\"UTF-8\">\n"
           "<script src=\"file://" +
           kViewer +
           "/dh_view.js\"></script>\n"
           "<script type=\"application/json\" id=\"dhat\">" +
           embedded +
           "</script>\n</head>\n"
           "<body onload=\"onLoad(); gFilename = 'run.json'; tryFunc(() => {"
           " const data = document.getElementById('dhat'); gData = JSON.parse(data.textContent);"
           " data.remove(); buildTree(); displayTree(); });\"></body></html>\n";
}

std::string without_tags(const std::string& html) {
    std::string text;
    bool in_tag = false;
    for (char c : html) {
        if (c == '<') in_tag = true;
        if (!in_tag) text += c;
        if (c == '>') in_tag = false;
    }
    for (auto [entity, character] : {std::pair{"&gt;", ">"}, {"&lt;", "<"}, {"&amp;", "&"}})
        for (size_t at; (at = text.find(entity)) != std::string::npos;)
            text.replace(at, std::string(entity).size(), character);
    return text;
}

// The text dh_view renders for the JSON file at `path`.
}  // namespace

std::string rendered(const std::string& json_path, const collector_test::Scratch& scratch) {
    std::string page = scratch / "view.html";
    std::ofstream(page) << viewer_page(read_file(json_path));
    collector_test::Outcome chromium = collector_test::run_bounded(
        90,
        {"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--lang=en-US",
         "--allow-file-access-from-files", "--user-data-dir=" + scratch / "profile", "--dump-dom",
         "file://" + page},
        {"LANG=en_US.UTF-8", "HOME=" + scratch.path()}, "");
    EXPECT_FALSE(chromium.timed_out);
    EXPECT_TRUE(chromium.exited_zero()) << chromium.err;
    return without_tags(chromium.out);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The program point whose frames include `frame`: from its "PP " line to the next.
std::string program_point(const std::string& text, const std::string& frame) {
    size_t at = text.find(": " + frame + "\n");
    if (at == std::string::npos) return "";
    size_t start = text.rfind("PP ", at);
    size_t end = text.find("PP ", at);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

void expect_point(const std::string& text, const std::string& frame,
                  const std::vector<std::string>& figures) {
    std::string point = program_point(text, frame);
    ASSERT_NE(point, "") << "no program point with " << frame << " in:\n" << text;
    for (const std::string& figure : figures)
        EXPECT_NE(point.find(figure), std::string::npos) << "want " << figure << " in:\n" << point;
}

double number_after(const std::string& text, const std::string& label) {
    size_t at = text.find(label);
    if (at == std::string::npos) return -1;
    std::string digits;
    for (size_t i = at + label.size(); i < text.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')
            digits += text[i];
        else if (text[i] != ',')
            break;
    }
    return digits.empty() ? -1 : std::stod(digits);
}

}  // namespace sites_test
