# SPDX-License-Identifier: MIT
# Assembles the HTML report's page into one file: run as
#   cmake -DPAGE=report.html -DOUTPUT=report_page.html -P assemble_page.cmake
# Every <link rel="stylesheet" href="F"> and <script src="F"></script> of the page (paths
# relative to it, the libraries' under node_modules) is replaced by F's text, inline, so the
# report opens from disk with no request. The one placeholder for the report's data stays.
cmake_minimum_required(VERSION 3.25)

foreach(var PAGE OUTPUT PLACEHOLDER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "assemble_page.cmake: -D${var}= is required")
  endif()
endforeach()
get_filename_component(page_dir "${PAGE}" DIRECTORY)
file(READ "${PAGE}" page)

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
