// SPDX-License-Identifier: MIT
#include "sites/frame_folding.h"

#include <gtest/gtest.h>

namespace memusagestat {
namespace {

SourceFrame named(const std::string& function, bool runtime = false) {
    SourceFrame frame;
    frame.function = function;
    frame.runtime = runtime;
    return frame;
}

TEST(FrameFolding, TheStandardLibraryAndTheAllocatorsOfOthersAreWrappers) {
    EXPECT_TRUE(is_wrapper(named("operator new(unsigned long)")));
    EXPECT_TRUE(is_wrapper(named("operator new[](unsigned long)")));
    EXPECT_TRUE(is_wrapper(named("std::vector<int, std::allocator<int> >::push_back(int const&)")));
    EXPECT_TRUE(
        is_wrapper(named("__gnu_cxx::new_allocator<char>::allocate(unsigned long, void const*)")));
    EXPECT_TRUE(is_wrapper(named("g_malloc0")));
    EXPECT_TRUE(is_wrapper(named("g_strdup")));
    EXPECT_TRUE(is_wrapper(named("_IO_file_doallocate", true))) << "anything in the C runtime";
    EXPECT_TRUE(is_wrapper(named("", true)));
    EXPECT_FALSE(is_wrapper(named("main")));
    EXPECT_FALSE(is_wrapper(named("make_table(int)")));
    EXPECT_FALSE(is_wrapper(named("")));
    EXPECT_FALSE(is_wrapper(named("mystd::thing()")));
}

TEST(FrameFolding, ATemplatesReturnTypeDoesNotHideItsName) {
    EXPECT_TRUE(is_wrapper(
        named("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
              "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int "
              "const&)")));
    EXPECT_TRUE(is_wrapper(
        named("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >& "
              "std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, "
              "std::allocator<char> > >::emplace_back<char const*>(char const*&&)")));
    EXPECT_FALSE(
        is_wrapper(named("std::vector<int, std::allocator<int> >* make_numbers<int>(int)")));
    EXPECT_EQ(without_return_type("Pool::operator new(unsigned long)"),
              "Pool::operator new(unsigned long)");
    EXPECT_EQ(without_return_type("operator new(unsigned long)"), "operator new(unsigned long)");
}

TEST(FrameFolding, ADecltypeReturnTypeIsAReturnTypeToo) {
    // std::construct_at, inlined into std::unordered_map::operator[] (libstdc++ 12).
    const std::string construct_at =
        "decltype (::new ((void*)(0)) std::pair<int const, long>((declval<std::"
        "piecewise_construct_t const&>)(), (declval<std::tuple<int const&> >)(), "
        "(declval<std::tuple<> >)())) std::construct_at<std::pair<int const, long>, "
        "std::piecewise_construct_t const&, std::tuple<int const&>, std::tuple<> >(std::pair<int "
        "const, long>*, std::piecewise_construct_t const&, std::tuple<int const&>&&, "
        "std::tuple<>&&)";
    EXPECT_TRUE(without_return_type(construct_at).starts_with("std::construct_at<"));
    EXPECT_TRUE(is_wrapper(named(construct_at)));
    EXPECT_EQ(short_name(construct_at), "std::construct_at");
}

TEST(FrameFolding, ShortNamesDropTypesArgumentsAndTheInlineNamespace) {
    EXPECT_EQ(short_name("std::vector<int, std::allocator<int> >::push_back(int const&)"),
              "std::vector::push_back");
    EXPECT_EQ(short_name("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int "
                         "const&>(int const&)"),
              "std::vector::_M_realloc_insert");
    EXPECT_EQ(short_name("std::__cxx11::basic_string<char, std::char_traits<char>, "
                         "std::allocator<char> >::operator+=(char const*)"),
              "std::basic_string::operator+=");
    EXPECT_EQ(short_name("operator new(unsigned long)"), "operator new");
    EXPECT_EQ(short_name("operator new[](unsigned long)"), "operator new[]");
    EXPECT_EQ(short_name("Table::operator()(int)"), "Table::operator()");
    EXPECT_EQ(short_name("printf"), "printf");
    // libstdc++'s std::construct_at returns decltype(::new ...): the name is after it.
    EXPECT_EQ(short_name("decltype (::new ((void*)(0)) std::pair<int const, int>((declval<int "
                         "const&>)())) std::construct_at<std::pair<int const, int>, int "
                         "const&>(std::pair<int const, int>*, int const&)"),
              "std::construct_at");
}

TEST(FrameFolding, AnonymousNamespacesAndLambdasAreNamesNotParameters) {
    EXPECT_EQ(short_name("v8::internal::(anonymous namespace)::ConstructBuffer(v8::internal::"
                         "Isolate*, int)"),
              "v8::internal::(anonymous namespace)::ConstructBuffer");
    EXPECT_EQ(short_name("(anonymous namespace)::grow(unsigned long)"),
              "(anonymous namespace)::grow");
    EXPECT_EQ(short_name("main::{lambda(unsigned long)#1}::operator()(unsigned long) const"),
              "main::{lambda(unsigned long)#1}::operator()");
    EXPECT_EQ(short_name("std::vector<(anonymous namespace)::Node, std::allocator<(anonymous "
                         "namespace)::Node> >::push_back((anonymous namespace)::Node const&)"),
              "std::vector::push_back");
    EXPECT_EQ(without_return_type("void (anonymous namespace)::Pool<int>::grow<int>(int)"),
              "(anonymous namespace)::Pool<int>::grow<int>(int)");
    EXPECT_TRUE(is_wrapper(named("std::(anonymous namespace)::pool::allocate(unsigned long)")));
}

TEST(FrameFolding, WhatRunsBeforeMainIsBelowIt) {
    EXPECT_TRUE(is_below_main(named("_start")));
    EXPECT_TRUE(is_below_main(named("__libc_start_call_main", true)));
    EXPECT_TRUE(is_below_main(named("start_thread", true)));
    EXPECT_TRUE(is_below_main(named("clone3", true)));
    EXPECT_FALSE(is_below_main(named("main")));
    EXPECT_FALSE(is_below_main(named("worker")));
    EXPECT_FALSE(is_below_main(named("_IO_puts", true)));
}

// Two instances of one template are two functions in the pictures and exports: the name
// shown keeps its template arguments, without the return type or the parameters.
TEST(FrameFolding, DisplayNamesKeepTemplateArguments) {
    const std::string string_type =
        "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >";
    EXPECT_EQ(display_name(string_type + " build<40>()"), "build<40>");
    EXPECT_EQ(display_name(string_type + " build<100>()"), "build<100>");
    EXPECT_EQ(display_name("void Cache<" + string_type + ">::fill(int)"),
              "Cache<std::string>::fill");
    EXPECT_EQ(display_name("main"), "main");
    EXPECT_EQ(display_name("(anonymous namespace)::make(int)"), "(anonymous namespace)::make");
    EXPECT_EQ(display_name("Box::operator()(int) const"), "Box::operator()");
}

// GCC's clones are their function; the C library's internal names are the public ones.
TEST(FrameFolding, PublicNames) {
    EXPECT_EQ(public_name("parse_line.isra.0", false), "parse_line");
    EXPECT_EQ(public_name("parse_line.constprop.0.isra.0", false), "parse_line");
    EXPECT_EQ(public_name("grow.part.0", false), "grow");
    EXPECT_EQ(public_name("grow.cold", false), "grow");
    EXPECT_EQ(public_name("build(int) [clone .isra.0]", false), "build(int)");
    EXPECT_EQ(public_name("__strdup", true), "strdup");
    EXPECT_EQ(public_name("__getdelim", true), "getline/getdelim");
    EXPECT_EQ(public_name("__fopen_internal", true), "fopen");
    // Outside the C library, a name is the program's own.
    EXPECT_EQ(public_name("__strdup", false), "__strdup");
    EXPECT_EQ(public_name("my.isra_like", false), "my.isra_like");
}

}  // namespace
}  // namespace memusagestat
