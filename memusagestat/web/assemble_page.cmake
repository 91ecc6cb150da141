# SPDX-License-Identifier: MIT
# Assembles a page of web/ (the HTML report's, the two-run page) into one file: run as
#   cmake -DPAGE=report.html -DOUTPUT=report_page.html -DPLACEHOLDER=@X@ -P assemble_page.cmake
# The parts the page names are put in first; then every <link rel="stylesheet" href="F"> and
# <script src="F"></script> of it (paths relative to it, the libraries' under node_modules) is
# replaced by F's text, inline, so the page opens from disk with no request. The one
# placeholder for the page's data stays.
cmake_minimum_required(VERSION 3.25)

foreach(var PAGE OUTPUT PLACEHOLDER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "assemble_page.cmake: -D${var}= is required")
  endif()
endforeach()
get_filename_component(page_dir "${PAGE}" DIRECTORY)
file(READ "${PAGE}" page)

# A line `<!-- part: F -->` of the page stands for the text of F (beside the page), the parts
# the report and the two-run page share (page_head.html, page_scripts.html); a part holds no
# part of its own.
set(part_regex "<!-- part: ([^ ]+) -->")
while(page MATCHES "${part_regex}")
  set(tag "${CMAKE_MATCH_0}")
  set(part "${page_dir}/${CMAKE_MATCH_1}")
  if(NOT EXISTS "${part}")
    message(FATAL_ERROR "${PAGE} refers to the part ${CMAKE_MATCH_1}, which is missing")
  endif()
  file(READ "${part}" text)
  string(STRIP "${text}" text)
  if(text MATCHES "${part_regex}")
    message(FATAL_ERROR "${part}: a part holds no part")
  endif()
  string(REPLACE "${tag}" "${text}" page "${page}")
endwhile()

function(read_inlined relative out_var)
  set(path "${page_dir}/${relative}")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "${PAGE} refers to ${relative}, which is missing "
                        "(for the libraries: run `npm ci` at the repository's root)")
  endif()
  file(READ "${path}" text)
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Raw text inside <style> ends at the first "</style", inside <script> at the first "</script"
# (any case). "<\/" means "</" in every JavaScript string, template and regular expression, and
# nothing else contains the sequence in valid code. "<!--" would put the HTML parser in the
# script's escaped state, where "<script" nests: written "<\!--", the same string to JavaScript.
function(escape_script text out_var)
  string(REGEX REPLACE "</([sS][cC][rR][iI][pP][tT])" "<\\\\/\\1" text "${text}")
  string(REPLACE "<!--" "<\\!--" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

set(out "")
set(rest "${page}")
set(tag_regex "<link rel=\"stylesheet\" href=\"([^\"]+)\" */?>|<script src=\"([^\"]+)\"></script>")
while(rest MATCHES "${tag_regex}")
  set(tag "${CMAKE_MATCH_0}")
  set(css "${CMAKE_MATCH_1}")
  set(script "${CMAKE_MATCH_2}")
  string(FIND "${rest}" "${tag}" at)
  string(SUBSTRING "${rest}" 0 ${at} before)
  string(LENGTH "${tag}" tag_length)
  math(EXPR after "${at} + ${tag_length}")
  string(SUBSTRING "${rest}" ${after} -1 rest)
  string(APPEND out "${before}")
  if(css)
    read_inlined("${css}" text)
    if(text MATCHES "</[sS][tT][yY][lL][eE]")
      message(FATAL_ERROR "${css} contains \"</style\", which would end the page's <style>")
    endif()
    string(APPEND out "<style>\n/* ${css} */\n${text}\n</style>")
  else()
    read_inlined("${script}" text)
    escape_script("${text}" text)
    string(APPEND out "<script>\n/* ${script} */\n${text}\n</script>")
  endif()
endwhile()
string(APPEND out "${rest}")

if(out MATCHES "<script[^>]* src=|<link[^>]* href=|@import|url\\([\"']?[^#\"')]")
  message(FATAL_ERROR "${PAGE}: a reference that would load from outside the page is left")
endif()
string(FIND "${out}" "${PLACEHOLDER}" first)
string(FIND "${out}" "${PLACEHOLDER}" last REVERSE)
if(first EQUAL -1 OR NOT first EQUAL last)
  message(FATAL_ERROR "${PAGE}: the placeholder ${PLACEHOLDER} must occur exactly once")
endif()
file(WRITE "${OUTPUT}.tmp" "${out}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
