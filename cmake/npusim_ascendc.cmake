# _npusim_includes_kernel_operator_first(<source text> <result variable>): TRUE when the
# source includes kernel_operator.h and nothing above that include can change what the header
# means (a #define, #undef or #if, or one of the project's own "..." headers), so compiling
# the file with the header precompiled and included first is the same as compiling it as
# written.
function(_npusim_includes_kernel_operator_first text result)
  set(${result} FALSE PARENT_SCOPE)
  string(REGEX MATCH "#[ \t]*include[ \t]*[<\"]kernel_operator\\.h[>\"]" include "${text}")
  if(NOT include)
    return()
  endif()
  string(FIND "${text}" "${include}" at)
  string(SUBSTRING "${text}" 0 ${at} before)
  if(NOT before MATCHES "#[ \t]*(define|undef|if|include[ \t]*\")")
    set(${result} TRUE PARENT_SCOPE)
  endif()
endfunction()

# npusim_add_ascendc_kernel(<target> SOURCES <files...> [KERNELS <names...>] [CPU_DEBUG])
#
# Builds an Ascend C sample (kernel and host sources) as an executable that runs on npusim.
# Layouts: the KernelLaunch one (add_custom.cpp + main.cpp with an ACL and a CPU-debug branch),
# kernels split over several files, and the single-source .asc programs (kernel and ACL host in
# one file, compiled as C++).
#   - default: the ACL branch. The host's main() runs as the simulated host program
#     (npusim::ascendc_main); `kernel<<<blockDim, l2ctrl, stream>>>(args)` launches (also of
#     template kernels, `k<T, N>\n<<<...>>>`) in the sources are rewritten to
#     NPUSIM_KERNEL_LAUNCH (copies in the build tree, with #line so reports name the original
#     files); for each name in KERNELS a header aclrtlaunch_<name>.h declares the kernel for
#     ACLRT_LAUNCH_KERNEL(<name>). A kernel (`__global__`, with or without extern "C", template
#     or not) whose source declares another type than AIV_ONLY (`__mix__(1, 2)`, `__cube__`,
#     or KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_...) in its body) is launched with that type: a
#     generated source registers it by name (the host program never names a type).
#   - CPU_DEBUG: the CPU-debug branch (ASCENDC_CPU_DEBUG and __CCE_KT_TEST__ defined,
#     tikicpulib.h's ICPU_RUN_KF runs the kernel on npusim with SetKernelMode's type, refined
#     by the declared one where they agree: AIV_MODE runs a declared AIV-only mix as that mix). A .asc source has no CPU branch of
#     its own: it runs as the ACL host program in this form too (NPUSIM_ACL_HOST_PROGRAM).
# Both forms define __NPU_ARCH__=2201 and __CCE_AICORE__=220 (the A2 paths of kernels that
# branch on the architecture).
# Either way the process prints a report at exit and exits non-zero on error findings.
# Environment at run time: NPUSIM_CHIP, NPUSIM_TRACE, NPUSIM_AUTO_SYNC (docs/ascendc.md).
# For a kernel header whose qualifiers stand under #if / #else (`header`, found in `text`, the
# file `path`): in `skeleton`, the header's preprocessor lines with a type registration in
# place of each qualifier line that declares a type (`__mix__(a, b)`, `__cube__`), followed by
# a #line back to the kernel's own line; empty when no branch declares a type. In `anchor`,
# where the skeleton goes: the kernel's template head and header (or the header alone).
function(_npusim_conditional_kernel_type text header kname path skeleton_var anchor_var)
  string(FIND "${text}" "${header}" at)
  string(SUBSTRING "${text}" 0 ${at} before)
  # The preprocessor lines right above the header (the #if that its #else / #endif close).
  string(REGEX MATCH "(\n[ \t]*#[^\n]*)+\n[ \t]*$" leading "${before}")
  string(LENGTH "${before}" before_length)
  string(LENGTH "${leading}" leading_length)
  math(EXPR start "${before_length} - ${leading_length}")
  string(SUBSTRING "${before}" 0 ${start} above)
  string(REGEX REPLACE "^\n" "" leading "${leading}")
  string(REGEX REPLACE "[ \t\r\n]+$" "" trimmed "${above}")
  if(trimmed MATCHES ">$")
    string(FIND "${above}" "template" template_at REVERSE)
    if(template_at GREATER -1)
      set(start ${template_at})
    endif()
  endif()
  string(LENGTH "${header}" header_length)
  math(EXPR anchor_length "${at} + ${header_length} - ${start}")
  string(SUBSTRING "${text}" ${start} ${anchor_length} anchor)
  string(SUBSTRING "${text}" 0 ${start} prefix)
  string(REGEX MATCHALL "\n" newlines "${prefix}")
  list(LENGTH newlines line)
  math(EXPR line "${line} + 1")
  # The qualifiers' text, one element per line ( ; escaped: none in qualifiers).
  string(REGEX REPLACE "void[ \t\r\n]+[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*\\([^)]*\\)$" "" qualifiers "${header}")
  string(REPLACE "\n" ";" lines "${leading}${qualifiers}")
  set(skeleton "")
  set(typed FALSE)
  foreach(one IN LISTS lines)
    if(one MATCHES "^[ \t]*#")
      string(APPEND skeleton "${one}\n")
    elseif(one MATCHES "__mix__[ \t]*\\([ \t]*([0-9]+)[ \t]*,[ \t]*([0-9]+)[ \t]*\\)")
      set(type "MIX_AIC_${CMAKE_MATCH_1}_${CMAKE_MATCH_2}")
      if(CMAKE_MATCH_1 STREQUAL "0")
        set(type "MIX_AIV_1_0")
      endif()
      string(APPEND skeleton "NPUSIM_DECLARE_KERNEL_TYPE(\"${kname}\", ${type})\n")
      set(typed TRUE)
    elseif(one MATCHES "__cube__")
      string(APPEND skeleton "NPUSIM_DECLARE_KERNEL_TYPE(\"${kname}\", AIC_ONLY)\n")
      set(typed TRUE)
    endif()
  endforeach()
  if(typed)
    set(${skeleton_var} "${skeleton}#line ${line} \"${path}\"\n" PARENT_SCOPE)
  else()
    set(${skeleton_var} "" PARENT_SCOPE)
  endif()
  set(${anchor_var} "${anchor}" PARENT_SCOPE)
endfunction()

function(npusim_add_ascendc_kernel target)
  cmake_parse_arguments(ARG "CPU_DEBUG" "" "SOURCES;KERNELS" ${ARGN})
  # A kernel's header: optional extern "C", its qualifiers in any order (one of them
  # __global__), its name and parameters. Preprocessor lines may stand between the qualifiers
  # (`__global__ __mix__(1, 1)` / `#else` / `__global__ __mix__(1, 2)` / `#endif`).
  set(_npusim_qualifier "(__global__|__aicore__|__vector__|__cube__|__mix__[ \t]*\\([ \t0-9,]*\\))")
  set(_npusim_kernel_header
      "(extern \"C\"[ \t\r\n]+)?${_npusim_qualifier}[ \t\r\n]+(${_npusim_qualifier}[ \t\r\n]+|#[^\n]*\n[ \t\r\n]*)*void[ \t\r\n]+[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*\\([^)]*\\)")
  set(typed_kernels "")
  set(inline_typed_kernels "")
  set(all_kernels "")
  set(type_registrations "")
  set(single_source FALSE)
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "npusim_add_ascendc_kernel(${target}): SOURCES is required")
  endif()
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_npusim)
  file(MAKE_DIRECTORY ${gen_dir})
  set(sources "")
  set(source_dirs "")
  set(precompiled_sources "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(abs ${source} ABSOLUTE)
    get_filename_component(dir ${abs} DIRECTORY)
    get_filename_component(name ${abs} NAME)
    get_filename_component(ext ${abs} LAST_EXT)
    list(APPEND source_dirs ${dir})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${abs})
    file(READ ${abs} text)
    _npusim_includes_kernel_operator_first("${text}" first)
    if(ext STREQUAL ".asc")
      set(single_source TRUE)
    endif()
    if(ext STREQUAL ".asc" OR (NOT ARG_CPU_DEBUG AND text MATCHES "<<<"))
      # name<<<a, b, c>>>(  ->  NPUSIM_KERNEL_LAUNCH((name), a, b, c)(   (also `> > >`, as
      # clang-format writes the closing chevrons); the arguments hold no `<<`, so a comment's
      # `<<<>>>` above a launch stays apart from it
      string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_:]*(<[^<>;]*>)?)[ \t\r\n]*<<<(([^;<]|<[^<;])*)>[ \t]*>[ \t]*>"
             "NPUSIM_KERNEL_LAUNCH((\\1), \\3)" rewritten "${text}")
      if(ext STREQUAL ".asc")
        set(name "${name}.cpp")  # compiled as C++
      endif()
      set(rewrite TRUE)
    else()
      set(rewrite FALSE)
      list(APPEND sources ${abs})
    endif()
    # Every kernel header: its name, its declaration and the type it declares.
    string(REGEX MATCHALL "${_npusim_kernel_header}" headers "${text}")
    set(untyped_here "")
    set(kernels_here "")
    foreach(header IN LISTS headers)
      if(NOT header MATCHES "__global__")
        continue()
      endif()
      string(REGEX MATCH "void[ \t\r\n]+([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*\\(" _ "${header}")
      set(kname ${CMAKE_MATCH_1})
      if(NOT declaration_${kname})
        # (Without the preprocessor lines of a conditional header: its qualifiers expand to
        # nothing here.)
        string(REGEX REPLACE "\n[ \t]*#[^\n]*" "" declaration_${kname} "${header}")
        # A template kernel (`template <...>` right before it) has no plain declaration.
        string(FIND "${text}" "${header}" at)
        string(SUBSTRING "${text}" 0 ${at} before)
        string(REGEX REPLACE "[ \t\r\n]+$" "" before "${before}")
        string(REGEX MATCH "[^\n]*$" last_line "${before}")
        if(last_line MATCHES ">$" AND NOT last_line MATCHES "^[ \t]*#")
          set(template_${kname} TRUE)
        endif()
      endif()
      set(type "")
      set(matmul_rule FALSE)
      if(header MATCHES "\n[ \t]*#")
        # Qualifiers under #if / #else: the registrations follow the same preprocessor lines.
        _npusim_conditional_kernel_type("${text}" "${header}" ${kname} ${abs} skeleton anchor)
        if(skeleton AND rewrite)
          string(REPLACE "${anchor}" "${skeleton}${anchor}" rewritten "${rewritten}")
          list(APPEND inline_typed_kernels ${kname})
        elseif(skeleton)
          string(APPEND type_registrations "${skeleton}")
          list(APPEND typed_kernels ${kname})
        endif()
      elseif(header MATCHES "__mix__[ \t]*\\([ \t]*([0-9]+)[ \t]*,[ \t]*([0-9]+)[ \t]*\\)")
        # __mix__(cube cores, vector cores): (0, 1) is an AIV-only mix.
        set(type "KERNEL_TYPE_MIX_AIC_${CMAKE_MATCH_1}_${CMAKE_MATCH_2}")
        if(CMAKE_MATCH_1 STREQUAL "0")
          set(type "KERNEL_TYPE_MIX_AIV_1_0")
        endif()
      elseif(header MATCHES "__cube__")
        set(type "KERNEL_TYPE_AIC_ONLY")
      else()
        # The body: from the header to the next __global__ (the next kernel).
        string(FIND "${text}" "${header}" at)
        string(SUBSTRING "${text}" ${at} -1 body)
        string(LENGTH "${header}" header_length)
        string(SUBSTRING "${body}" ${header_length} -1 body)
        string(FIND "${body}" "__global__" next)
        if(next GREATER -1)
          string(SUBSTRING "${body}" 0 ${next} body)
        endif()
        if(body MATCHES "^[ \t\r\n]*{" AND
           body MATCHES "KERNEL_TASK_TYPE_DEFAULT[ \t]*\\([ \t]*(KERNEL_TYPE_[A-Z0-9_]+)")
          set(type ${CMAKE_MATCH_1})
        elseif(text MATCHES "#[ \t]*include[ \t]*[<\"]lib/matmul_intf.h"
               AND (rewrite OR NOT text MATCHES "#[ \t]*define[ \t]+ASCENDC_CUBE_ONLY"))
          # The vendor's compiler makes a kernel using the Matmul API mixed (1 AIC : 2 AIV), as
          # npusim_add_ascendc_op does (docs/ascendc.md, "The Matmul API in a mixed kernel");
          # in a rewritten source the preprocessor decides (ASCENDC_CUBE_ONLY may be defined
          # under an #if).
          set(type "KERNEL_TYPE_MIX_AIC_1_2")
          set(matmul_rule TRUE)
        endif()
      endif()
      # In a source compiled as rewritten, the registration goes on the header's own line, so
      # the sample's #if / #else pick the header and its type together (the line count stays).
      set(registration "")
      if(rewrite AND type AND NOT type STREQUAL "KERNEL_TYPE_AIV_ONLY" AND NOT template_${kname})
        if(matmul_rule)
          set(registration "NPUSIM_DECLARE_MATMUL_KERNEL(\"${kname}\")")
        else()
          string(REPLACE "KERNEL_TYPE_" "" type_name "${type}")
          set(registration "NPUSIM_DECLARE_KERNEL_TYPE(\"${kname}\", ${type_name})")
        endif()
        list(APPEND inline_typed_kernels ${kname})
      endif()
      # Its name by address too (a launch through a function pointer): the header declared
      # once more on its own line, then registered; not for templates, headers under #if or
      # with default arguments (declared twice, an error).
      if(rewrite AND NOT template_${kname} AND NOT header MATCHES "\n[ \t]*#"
         AND NOT header MATCHES "=")
        string(REGEX REPLACE "[\r\n]+" " " one_line "${header}")
        string(REGEX MATCH "void[ \t]+${kname}[ \t]*\\(([^)]*)\\)$" _ "${one_line}")
        set(registration "${one_line}; NPUSIM_DECLARE_KERNEL_NAME(${kname}, void (*)(${CMAKE_MATCH_1})) ${registration}")
      endif()
      if(registration)
        string(FIND "${rewritten}" "${registration} ${header}" done_at)
        if(done_at EQUAL -1)
          string(REPLACE "${header}" "${registration} ${header}" rewritten "${rewritten}")
        endif()
      endif()
      if(NOT kname IN_LIST kernels_here)
        list(APPEND kernels_here ${kname})
        if(NOT type OR (matmul_rule AND text MATCHES "#[ \t]*define[ \t]+ASCENDC_CUBE_ONLY"))
          list(APPEND untyped_here ${kname})
        endif()
      endif()
      if(NOT kname IN_LIST all_kernels)
        list(APPEND all_kernels ${kname})
      endif()
      # A parameter marked __kfc_workspace__, else one named `workspace` (the vendor's kernel
      # launch with HAVE_WORKSPACE): the launch sets it as the system workspace.
      string(FIND "${header}" "__kfc_workspace__" kfc_at)
      if(kfc_at EQUAL -1 AND header MATCHES "[ \t\r\n*]workspace[ \t\r\n]*[,)]")
        string(REGEX MATCH "[ \t\r\n*]workspace[ \t\r\n]*[,)]" named "${header}")
        string(FIND "${header}" "${named}" kfc_at)
      endif()
      if(kfc_at GREATER -1 AND NOT kname IN_LIST kfc_kernels)
        list(APPEND kfc_kernels ${kname})
        string(FIND "${header}" "${kname}" open_at REVERSE)  # the parameters follow the name
        math(EXPR before_length "${kfc_at} - ${open_at}")
        string(SUBSTRING "${header}" ${open_at} ${before_length} before_kfc)
        string(REGEX MATCHALL "," commas "${before_kfc}")
        list(LENGTH commas kfc_index)
        string(APPEND type_registrations
               "static const bool npusim_kfc_${kname} = ::npusim::acl::declare_kfc_workspace(\"${kname}\", ${kfc_index});\n")
      endif()
      if(type AND NOT type STREQUAL "KERNEL_TYPE_AIV_ONLY" AND NOT kname IN_LIST typed_kernels
         AND NOT kname IN_LIST inline_typed_kernels)
        list(APPEND typed_kernels ${kname})
        string(APPEND type_registrations
               "static const bool npusim_declared_${kname} = ::npusim::acl::declare_kernel_type(\n    \"${kname}\", ::npusim::ascendc::to_kernel_type(${type}));\n")
      endif()
    endforeach()
    # The one kernel of a file whose KERNEL_TASK_TYPE_DEFAULT sits elsewhere (in a class's Init,
    # above the kernel, or in a header the file includes with "..." from its own folder): the
    # type is the kernel's when the file and those headers name exactly one.
    list(LENGTH kernels_here kernel_count)
    if(kernel_count EQUAL 1 AND untyped_here)
      set(scope "${text}")
      string(REGEX MATCHALL "#[ \t]*include[ \t]*\"[^\"]+\"" includes "${text}")
      foreach(include IN LISTS includes)
        string(REGEX REPLACE "^#[ \t]*include[ \t]*\"([^\"]+)\"$" "\\1" included "${include}")
        if(EXISTS ${dir}/${included} AND NOT IS_DIRECTORY ${dir}/${included})
          file(READ ${dir}/${included} included_text)
          string(APPEND scope "\n${included_text}")
        endif()
      endforeach()
      string(REGEX MATCHALL "KERNEL_TASK_TYPE_DEFAULT[ \t]*\\([ \t]*KERNEL_TYPE_[A-Z0-9_]+" uses "${scope}")
      set(named "")
      foreach(use IN LISTS uses)
        string(REGEX MATCH "KERNEL_TYPE_[A-Z0-9_]+" one "${use}")
        list(APPEND named ${one})
      endforeach()
      list(REMOVE_DUPLICATES named)
      list(LENGTH named named_count)
      if(named_count EQUAL 1 AND NOT named STREQUAL "KERNEL_TYPE_AIV_ONLY"
         AND NOT untyped_here IN_LIST typed_kernels)
        list(APPEND typed_kernels ${untyped_here})
        string(APPEND type_registrations
               "static const bool npusim_declared_${untyped_here} = ::npusim::acl::declare_kernel_type(\n    \"${untyped_here}\", ::npusim::ascendc::to_kernel_type(${named}));\n")
      endif()
    endif()
    if(rewrite)
      file(WRITE ${gen_dir}/${name} "#include \"acl/acl.h\"\n#line 1 \"${abs}\"\n${rewritten}")
      list(APPEND sources ${gen_dir}/${name})
    endif()
    if(first)
      list(GET sources -1 compiled)
      list(APPEND precompiled_sources ${compiled})
    endif()
  endforeach()
  # aclrtlaunch_<k>.h for every plain kernel found (as the vendor's build does), not only the
  # ones KERNELS names.
  foreach(kernel IN LISTS all_kernels)
    if(NOT template_${kernel} AND NOT kernel IN_LIST ARG_KERNELS)
      file(WRITE ${gen_dir}/aclrtlaunch_${kernel}.h
           "// Generated by npusim_add_ascendc_kernel: declares ${kernel} for ACLRT_LAUNCH_KERNEL.\n#pragma once\n#include \"kernel_operator.h\"\n#include \"acl/acl.h\"\n${declaration_${kernel}};\n")
    endif()
  endforeach()
  foreach(kernel IN LISTS ARG_KERNELS)
    set(declaration "${declaration_${kernel}}")
    if(template_${kernel})
      message(FATAL_ERROR "npusim_add_ascendc_kernel(${target}): ${kernel} is a template kernel: "
              "ACLRT_LAUNCH_KERNEL cannot name it, launch it with ${kernel}<...><<<...>>>")
    elseif(declaration)
      file(WRITE ${gen_dir}/aclrtlaunch_${kernel}.h
           "// Generated by npusim_add_ascendc_kernel: declares ${kernel} for ACLRT_LAUNCH_KERNEL.\n#pragma once\n#include \"kernel_operator.h\"\n#include \"acl/acl.h\"\n${declaration};\n")
    elseif(NOT ARG_CPU_DEBUG)
      message(FATAL_ERROR "npusim_add_ascendc_kernel(${target}): no __global__ void ${kernel}(...) in SOURCES")
    endif()
  endforeach()
  if(type_registrations)
    file(WRITE ${gen_dir}/npusim_kernel_types.cpp
         "// Generated by npusim_add_ascendc_kernel: the kernel types the sources declare.\n#include \"kernel_operator.h\"\n#include \"acl/acl.h\"\n${type_registrations}")
    list(APPEND sources ${gen_dir}/npusim_kernel_types.cpp)
    list(APPEND precompiled_sources ${gen_dir}/npusim_kernel_types.cpp)
  endif()
  list(REMOVE_DUPLICATES source_dirs)
  add_executable(${target} ${sources})
  # kernel_operator.h (~2.5 s of parsing) is precompiled once for the target's files that
  # include it before anything that could change it (no #define, #if or "..." include above
  # it); the other files parse it as written. Only where it pays: two files or more.
  list(LENGTH precompiled_sources precompiled_count)
  if(precompiled_count GREATER 1)
    target_precompile_headers(${target} PRIVATE <kernel_operator.h>)
    foreach(source IN LISTS sources)
      if(NOT source IN_LIST precompiled_sources)
        set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
  endif()
  target_include_directories(${target} PRIVATE ${gen_dir} ${source_dirs})
  target_compile_definitions(${target} PRIVATE __NPU_ARCH__=2201 __CCE_AICORE__=220)
  if(ARG_CPU_DEBUG)
    target_compile_definitions(${target} PRIVATE ASCENDC_CPU_DEBUG=1 __CCE_KT_TEST__=1)
  endif()
  if(ARG_CPU_DEBUG AND NOT single_source)
    target_link_libraries(${target} PRIVATE npusim::ascendc)
  else()
    if(ARG_CPU_DEBUG)
      target_compile_definitions(${target} PRIVATE NPUSIM_ACL_HOST_PROGRAM=1)
    endif()
    target_link_libraries(${target} PRIVATE npusim::ascendc npusim::ascendc_main)
  endif()
endfunction()
