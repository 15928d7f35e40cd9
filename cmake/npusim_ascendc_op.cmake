# npusim_add_ascendc_op(<target> OP_HOST <dir> OP_KERNEL <dir>)
#
# Builds an Ascend C operator project (op_host/ and op_kernel/, sources unchanged) as an object
# library that exposes, for each op its op_host sources register with OP_ADD(<Op>), the
# generated two-phase aclnn API, declared in aclnn_<op_snake>.h (on the library's include
# path):
#   aclnnStatus aclnn<Op>GetWorkspaceSize(inputs..., attrs..., outputs...,
#                                         uint64_t* workspaceSize, aclOpExecutor** executor);
#   aclnnStatus aclnn<Op>(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
#                         aclrtStream stream);
# Inputs and outputs are `const aclTensor*` (DYNAMIC ones `const aclTensorList*`, ValueDepend
# inputs `const aclIntArray*` / `aclFloatArray*` / `aclBoolArray*` by their declared types, with
# an aclnn<Op>TensorGetWorkspaceSize variant taking tensors, Scalar inputs `const aclScalar*`);
# attributes by their type in the definition: Int int64_t, Float double, Bool bool, String
# `const char*`, ListInt `const aclIntArray*`, ListFloat `const aclFloatArray*`, ListBool
# `const aclBoolArray*`. The kernel is the op_kernel function named <op_snake>
# (AddCustom -> add_custom) with parameters (inputs..., outputs..., workspace, tiling).
# Link the target into the host program (with npusim::ascendc_main for a main() that includes
# acl/acl.h). The op_host sources see register/op_def_registry.h and register/
# tilingdata_base.h (npusim's own, docs/ascendc.md); the op_kernel sources are compiled with
# the op_host headers that define tiling data (BEGIN_TILING_DATA_DEF) included first, so
# GET_TILING_DATA finds the struct, as the vendor's build does. Each project's `optiling`
# namespace is made its own (a macro renames it), so several projects link into one program.
# The kernel source of an op gets DTYPE_<NAME> (the C type: half, float, int32_t, ...) for each
# input and output that declares one data type, as the vendor's per-type kernel build defines.
# Not supported yet (a configure error names it): an input and an
# output of the same name (the vendor's in-place <name>Ref parameter), a kernel using
# DTYPE_<NAME> in a DataTypeList of several types. A kernel that uses DTYPE_<NAME> of an op with
# several data type combinations (column j of the DataType lists) is built once per combination,
# each build in namespace npusim_c<j> with the kernel renamed; aclnn<Op> launches the build whose
# combination the tensors match.
function(npusim_add_ascendc_op target)
  cmake_parse_arguments(ARG "" "OP_HOST;OP_KERNEL" "" ${ARGN})
  if(NOT ARG_OP_HOST OR NOT ARG_OP_KERNEL)
    message(FATAL_ERROR "npusim_add_ascendc_op(${target}): OP_HOST and OP_KERNEL are required")
  endif()
  get_filename_component(host_dir ${ARG_OP_HOST} ABSOLUTE)
  get_filename_component(kernel_dir ${ARG_OP_KERNEL} ABSOLUTE)
  file(GLOB host_sources ${host_dir}/*.cpp ${host_dir}/*.cc)
  file(GLOB host_headers ${host_dir}/*.h ${host_dir}/*.hpp)
  file(GLOB kernel_sources ${kernel_dir}/*.cpp ${kernel_dir}/*.cc)
  if(NOT host_sources OR NOT kernel_sources)
    message(FATAL_ERROR "npusim_add_ascendc_op(${target}): no .cpp sources in ${host_dir} or ${kernel_dir}")
  endif()
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_npusim_op)
  file(MAKE_DIRECTORY ${gen_dir})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${host_sources} ${host_headers} ${kernel_sources})

  # The op_host headers that define tiling data: included first in every kernel source.
  set(tiling_headers "")
  foreach(header IN LISTS host_headers)
    file(READ ${header} text)
    if(text MATCHES "BEGIN_TILING_DATA_DEF")
      list(APPEND tiling_headers ${header})
    endif()
  endforeach()

  # Kernel sources with a `<<<>>>` launch (an old-style `<op>_do` wrapper next to the kernel)
  # are compiled from a copy with the launch rewritten, as npusim_add_ascendc_kernel does.
  set(kernel_text "")
  set(compiled_kernels "")
  foreach(source IN LISTS kernel_sources)
    file(READ ${source} text)
    string(APPEND kernel_text "${text}\n")
    if(text MATCHES "<<<")
      string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_:]*(<[^<>;]*>)?)[ \t\r\n]*<<<([^;]*)>[ \t]*>[ \t]*>"
             "NPUSIM_KERNEL_LAUNCH((\\1), \\3)" rewritten "${text}")
      get_filename_component(name ${source} NAME)
      file(WRITE ${gen_dir}/kernel_${name}.new "#include \"acl/acl.h\"\n#line 1 \"${source}\"\n${rewritten}")
      file(COPY_FILE ${gen_dir}/kernel_${name}.new ${gen_dir}/kernel_${name} ONLY_IF_DIFFERENT)
      file(REMOVE ${gen_dir}/kernel_${name}.new)
      list(APPEND compiled_kernels ${gen_dir}/kernel_${name})
    else()
      list(APPEND compiled_kernels ${source})
    endif()
  endforeach()

  set(ops "")
  foreach(source IN LISTS host_sources)
    file(READ ${source} text)
    string(REGEX MATCHALL "OP_ADD[ \t]*\\([ \t]*[A-Za-z_][A-Za-z0-9_]*" adds "${text}")
    foreach(add IN LISTS adds)
      string(REGEX REPLACE "OP_ADD[ \t]*\\([ \t]*" "" op "${add}")
      list(APPEND ops ${op})
      _npusim_ascendc_op_api(${target} ${op} "${text}" "${kernel_text}" ${gen_dir} snake)
      set(snake_${op} ${snake})
      set(combos_${op} ${combos})
    endforeach()
  endforeach()
  if(NOT ops)
    message(FATAL_ERROR "npusim_add_ascendc_op(${target}): no OP_ADD(<Op>) in ${host_dir}")
  endif()

  set(tiling_text "")
  set(kernel_options "")
  foreach(header IN LISTS tiling_headers)
    file(READ ${header} text)
    string(APPEND tiling_text "${text}\n")
    list(APPEND kernel_options "-include${header}")
  endforeach()
  # The vendor's build generates the kernel's tiling structs at global scope: a kernel may name
  # them (`const XTilingData& t`) outside GET_TILING_DATA, so those declared in namespace
  # optiling are brought to global scope.
  set(tiling_usings "")
  if(tiling_text MATCHES "namespace[ \t\r\n]+optiling")
    string(REGEX MATCHALL "BEGIN_TILING_DATA_DEF[ \t]*\\([ \t]*[A-Za-z_][A-Za-z0-9_]*" defs "${tiling_text}")
    foreach(def IN LISTS defs)
      string(REGEX REPLACE "BEGIN_TILING_DATA_DEF[ \t]*\\([ \t]*" "" struct "${def}")
      string(APPEND tiling_usings "using optiling::${struct};\n")
    endforeach()
  endif()
  # One translation unit per kernel source: the source (or its rewritten copy), then the
  # aclnn API of each op whose kernel it defines (one heavy compile instead of two).
  set(units "")
  foreach(source IN LISTS compiled_kernels)
    # The op whose kernel the source defines: its DTYPE_<NAME>, and its registered tiling
    # struct for GET_TILING_DATA (the headers may register several).
    set(definitions NPUSIM_OP_KERNEL_SIDE=1)
    get_filename_component(name ${source} NAME)
    file(READ ${source} text)
    set(combined FALSE)
    foreach(op IN LISTS ops)
      if(combos_${op} GREATER 1 AND text MATCHES "void[ \t\r\n]+${snake_${op}}[ \t\r\n]*\\(")
        # One unit per data type combination (_npusim_ascendc_op_combinations).
        _npusim_ascendc_op_combinations(${op} ${snake_${op}} ${source} "${text}" ${kernel_dir}
                                        ${gen_dir} "${definitions}" "${kernel_options}"
                                        "${tiling_text}" combination_units)
        list(APPEND units ${combination_units})
        set(combined TRUE)
      endif()
    endforeach()
    if(combined)
      continue()
    endif()
    # The kernel is renamed <snake>_npusim_k after the source's includes from outside op_kernel/
    # (a kernel may have the name of a C library function: fmax, asinh).
    _npusim_ascendc_outer_includes("${text}" ${kernel_dir} outer)
    set(renames "")
    set(undefs "")
    foreach(op IN LISTS ops)
      if(text MATCHES "void[ \t\r\n]+${snake_${op}}[ \t\r\n]*\\(")
        string(APPEND renames "#define ${snake_${op}} ${snake_${op}}_npusim_k\n")
        string(APPEND undefs "#undef ${snake_${op}}\n")
      endif()
    endforeach()
    string(CONCAT unit "// Generated by npusim_add_ascendc_op: a kernel source and its ops' aclnn API.\n"
           "${outer}${tiling_usings}${renames}#include \"${source}\"\n${undefs}")
    foreach(op IN LISTS ops)
      if(text MATCHES "void[ \t\r\n]+${snake_${op}}[ \t\r\n]*\\(")
        list(APPEND definitions ${dtypes_${op}})
        if(tiling_text MATCHES "REGISTER_TILING_DATA_CLASS[ \t]*\\([ \t]*${op}[ \t]*,")
          list(APPEND definitions NPUSIM_TILING_OP=${op})
        endif()
        string(APPEND unit "#include \"aclnn_${snake_${op}}.inc\"\n")
      endif()
    endforeach()
    file(WRITE ${gen_dir}/unit_${name}.new "${unit}")
    file(COPY_FILE ${gen_dir}/unit_${name}.new ${gen_dir}/unit_${name} ONLY_IF_DIFFERENT)
    file(REMOVE ${gen_dir}/unit_${name}.new)
    set_source_files_properties(${gen_dir}/unit_${name} PROPERTIES
      COMPILE_DEFINITIONS "${definitions}" COMPILE_OPTIONS "${kernel_options}")
    list(APPEND units ${gen_dir}/unit_${name})
  endforeach()

  add_library(${target} OBJECT ${host_sources} ${units})
  target_include_directories(${target} PUBLIC ${gen_dir} PRIVATE ${host_dir} ${kernel_dir})
  target_compile_definitions(${target} PRIVATE optiling=npusim_optiling_${target}
                             __NPU_ARCH__=2201 __CCE_AICORE__=220)
  target_link_libraries(${target} PUBLIC npusim::ascendc)
endfunction()

# The aclnn header and API source (.inc) of op `op` (class text in `host_text`, kernel in `kernel_text`).
function(_npusim_ascendc_op_api target op host_text kernel_text gen_dir out_snake)
  # AddCustom -> add_custom
  string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" snake "${op}")
  string(REGEX REPLACE "([A-Z])([A-Z][a-z])" "\\1_\\2" snake "${snake}")
  string(TOLOWER "${snake}" snake)
  # The definition: from `class <op>` to OP_ADD(<op>).
  string(FIND "${host_text}" "class ${op}" begin)
  string(FIND "${host_text}" "OP_ADD(${op}" end)
  if(end EQUAL -1)
    string(FIND "${host_text}" "OP_ADD" end REVERSE)
  endif()
  if(begin EQUAL -1)
    message(FATAL_ERROR "npusim_add_ascendc_op(${target}): no `class ${op}` for OP_ADD(${op})")
  endif()
  math(EXPR length "${end} - ${begin}")
  string(SUBSTRING "${host_text}" ${begin} ${length} body)
  # Each Input/Output/Attr statement of the definition (`this->Input("x")...;` or a statement
  # on its own line); AICore config parameters (`config.Input(...)`) are not the op's.
  string(REGEX MATCHALL "(this->|\n[ \t]*)(Input|Output|Attr)[ \t]*\\([ \t]*\"[^\"]+\"[ \t]*\\)[^;]*"
         statements "${body}")
  set(inputs "")
  set(outputs "")
  set(dtype_definitions "")
  set(several_types FALSE)
  set(list_types FALSE)
  set(typed_params "")
  set(combos 1)
  foreach(pair DT_FLOAT:float DT_FLOAT16:half DT_BF16:bfloat16_t DT_INT8:int8_t DT_INT16:int16_t
          DT_INT32:int32_t DT_INT64:int64_t DT_UINT8:uint8_t DT_UINT16:uint16_t DT_UINT32:uint32_t
          DT_UINT64:uint64_t DT_BOOL:bool DT_DOUBLE:double)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 ge_type)
    list(GET pair 1 c_type)
    set(_npusim_ctype_${ge_type} ${c_type})
  endforeach()
  set(attr_params "")
  set(attr_values "")
  set(input_params "")
  set(tensor_input_params "")
  set(value_depend FALSE)
  set(output_params "")
  foreach(statement IN LISTS statements)
    string(REGEX MATCH "(Input|Output|Attr)[ \t]*\\([ \t]*\"([^\"]+)\"" _ "${statement}")
    set(kind ${CMAKE_MATCH_1})
    set(name ${CMAKE_MATCH_2})
    set(types "")
    # DTYPE_<NAME> for the kernel: the parameter's type when it declares one (repeated or not).
    if(NOT kind STREQUAL "Attr" AND statement MATCHES "DataType(List)?[ \t\r\n]*\\([ \t\r\n]*{([^}]*)}")
      set(is_list "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "[ \t\r\n]|ge::" "" column_types "${CMAKE_MATCH_2}")
      string(REPLACE "," ";" column_types "${column_types}")
      set(types "${column_types}")
      list(REMOVE_DUPLICATES types)
      list(LENGTH types count)
      string(TOUPPER "${name}" upper)
      if(count EQUAL 1)
        list(GET types 0 type)
        if(DEFINED _npusim_ctype_${type})
          list(APPEND dtype_definitions "DTYPE_${upper}=${_npusim_ctype_${type}}")
        endif()
        set(column_types ${type})
      elseif(is_list)
        set(list_types TRUE)
      else()
        set(several_types TRUE)
      endif()
      # Column j of every DataType list is combination j (DTYPE_<NAME> of its kernel build).
      list(APPEND typed_params "${upper}")
      set(types_of_${upper} "${column_types}")
      list(LENGTH column_types column_count)
      if(NOT is_list AND column_count GREATER combos)
        set(combos ${column_count})
      endif()
    endif()
    if(kind STREQUAL "Input")
      list(APPEND inputs ${name})
      if(statement MATCHES "ParamType[ \t]*\\([ \t]*DYNAMIC")
        set(type "const aclTensorList*")
        set(tensor_type "${type}")
      elseif(statement MATCHES "\\.ValueDepend[ \t]*\\(")
        # The vendor's API takes the values as an array of the declared types' kind, and a
        # <Op>TensorGetWorkspaceSize variant takes a device tensor.
        set(value_depend TRUE)
        set(tensor_type "const aclTensor*")
        if(types STREQUAL "DT_FLOAT")
          set(type "const aclFloatArray*")
        elseif(types STREQUAL "DT_BOOL")
          set(type "const aclBoolArray*")
        else()
          set(type "const aclIntArray*")
        endif()
      elseif(statement MATCHES "\\.Scalar[ \t]*\\(")
        set(type "const aclScalar*")
        set(tensor_type "${type}")
      else()
        set(type "const aclTensor*")
        set(tensor_type "${type}")
      endif()
      string(APPEND input_params "${type} ${name}, ")
      string(APPEND tensor_input_params "${tensor_type} ${name}, ")
    elseif(kind STREQUAL "Output")
      set(type "const aclTensor*")
      if(statement MATCHES "ParamType[ \t]*\\([ \t]*DYNAMIC")
        set(type "const aclTensorList*")
      endif()
      if(name IN_LIST inputs)
        message(FATAL_ERROR "npusim_add_ascendc_op(${target}): ${op} has an input and an output "
                "named ${name} (an in-place `${name}Ref` parameter in the vendor's aclnn API): not "
                "supported yet (docs/ascendc.md)")
      endif()
      list(APPEND outputs ${name})
      string(APPEND output_params "${type} ${name}Out, ")
    else()
      if(statement MATCHES "\\.ListInt[ \t]*\\(")
        set(type "const aclIntArray*")
      elseif(statement MATCHES "\\.ListBool[ \t]*\\(")
        set(type "const aclBoolArray*")
      elseif(statement MATCHES "\\.ListFloat[ \t]*\\(")
        set(type "const aclFloatArray*")
      elseif(statement MATCHES "\\.Int[ \t]*\\(")
        set(type "int64_t")
      elseif(statement MATCHES "\\.Float[ \t]*\\(")
        set(type "double")
      elseif(statement MATCHES "\\.Bool[ \t]*\\(")
        set(type "bool")
      elseif(statement MATCHES "\\.String[ \t]*\\(")
        set(type "const char*")
      else()
        message(FATAL_ERROR "npusim_add_ascendc_op(${target}): attribute ${name} of ${op} has a type "
                "npusim does not support yet (Int, Float, Bool, String, ListInt, ListFloat, ListBool; "
                "docs/ascendc.md)")
      endif()
      string(APPEND attr_params "${type} ${name}, ")
      string(APPEND attr_values "::npusim::ascendc::op::attr_value(${name}), ")
    endif()
  endforeach()
  list(TRANSFORM outputs APPEND "Out)" OUTPUT_VARIABLE output_args)
  list(TRANSFORM output_args PREPEND "::npusim::ascendc::op::arg(")
  list(TRANSFORM inputs APPEND ")" OUTPUT_VARIABLE input_args)
  list(TRANSFORM input_args PREPEND "::npusim::ascendc::op::arg(")
  list(JOIN input_args ", " input_list)
  list(JOIN output_args ", " output_list)

  # The kernel: `__global__ ... void <snake>(...)` in the op_kernel sources, and its type(s).
  set(header_regex
      "(extern \"C\"[ \t\r\n]+)?((__global__|__aicore__|__vector__|__cube__|__mix__[ \t]*\\([ \t0-9,]*\\))[ \t\r\n]+)+void[ \t\r\n]+${snake}[ \t\r\n]*\\([^)]*\\)")
  string(REGEX MATCH "${header_regex}" declaration "${kernel_text}")
  if(NOT declaration)
    message(FATAL_ERROR "npusim_add_ascendc_op(${target}): no `__global__ ... void ${snake}(...)` "
            "kernel for ${op} in the op_kernel sources")
  endif()
  string(FIND "${kernel_text}" "${declaration}" at)
  string(LENGTH "${declaration}" declaration_length)
  math(EXPR after "${at} + ${declaration_length}")
  string(SUBSTRING "${kernel_text}" ${after} -1 kernel_body)
  string(FIND "${kernel_body}" "__global__" next)
  if(next GREATER -1)
    string(SUBSTRING "${kernel_body}" 0 ${next} kernel_body)
  endif()
  set(other_type "KERNEL_TYPE_AIV_ONLY")
  if(declaration MATCHES "__mix__[ \t]*\\([ \t]*([0-9]+)[ \t]*,[ \t]*([0-9]+)[ \t]*\\)")
    set(other_type "KERNEL_TYPE_MIX_AIC_${CMAKE_MATCH_1}_${CMAKE_MATCH_2}")
    if(CMAKE_MATCH_1 STREQUAL "0")
      set(other_type "KERNEL_TYPE_MIX_AIV_1_0")
    endif()
  elseif(declaration MATCHES "__cube__")
    set(other_type "KERNEL_TYPE_AIC_ONLY")
  elseif(kernel_body MATCHES "KERNEL_TASK_TYPE_DEFAULT[ \t]*\\([ \t]*(KERNEL_TYPE_[A-Z0-9_]+)")
    set(other_type ${CMAKE_MATCH_1})
  elseif(kernel_text MATCHES "#[ \t]*include[ \t]*[<\"]lib/matmul_intf.h"
         AND NOT kernel_text MATCHES "#[ \t]*define[ \t]+ASCENDC_CUBE_ONLY")
    # The vendor's compiler makes a kernel that uses the Matmul API mixed (1 AIC : 2 AIV): its
    # AIV code drives the Matmul through messages to the AIC (ASCENDC_CUBE_ONLY: cube only).
    set(other_type "KERNEL_TYPE_MIX_AIC_1_2")
  elseif(kernel_text MATCHES "#[ \t]*include[ \t]*[<\"]lib/matmul_intf.h")
    set(other_type "KERNEL_TYPE_AIC_ONLY")
  endif()
  string(REGEX MATCHALL "KERNEL_TASK_TYPE[ \t]*\\([ \t]*[0-9]+[uUlL]*[ \t]*,[ \t]*KERNEL_TYPE_[A-Z0-9_]+"
         keyed "${kernel_body}")
  set(by_key "")
  foreach(entry IN LISTS keyed)
    string(REGEX MATCH "\\([ \t]*([0-9]+)[uUlL]*[ \t]*,[ \t]*(KERNEL_TYPE_[A-Z0-9_]+)" _ "${entry}")
    string(APPEND by_key "{${CMAKE_MATCH_1}, ::npusim::ascendc::to_kernel_type(${CMAKE_MATCH_2})}, ")
  endforeach()

  # A kernel that uses DTYPE_<NAME> of an op declaring several data type combinations is
  # built once per combination, as the vendor's build does; aclnn<Op> launches the build of
  # the combination the tensors match.
  if(several_types AND kernel_text MATCHES "DTYPE_[A-Z0-9_]+")
    if(list_types)
      message(FATAL_ERROR "npusim_add_ascendc_op(${target}): ${op} declares several types in a "
              "DataTypeList and its kernel uses DTYPE_<NAME>: the builds per type of a "
              "DataTypeList are not supported yet (docs/ascendc.md)")
    endif()
    math(EXPR last "${combos} - 1")
    foreach(column RANGE ${last})
      set(column_definitions "")
      foreach(upper IN LISTS typed_params)
        list(LENGTH types_of_${upper} count)
        set(index ${column})
        if(count EQUAL 1)
          set(index 0)
        elseif(NOT column LESS count)
          message(FATAL_ERROR "npusim_add_ascendc_op(${target}): the DataType lists of ${op} "
                  "have different lengths (${upper}: ${count}, others ${combos})")
        endif()
        list(GET types_of_${upper} ${index} type)
        if(NOT DEFINED _npusim_ctype_${type})
          message(FATAL_ERROR "npusim_add_ascendc_op(${target}): data type ${type} of "
                  "${upper} in ${op}: no C type for DTYPE_${upper} in npusim yet (docs/ascendc.md)")
        endif()
        list(APPEND column_definitions "DTYPE_${upper}=${_npusim_ctype_${type}}")
      endforeach()
      set(dtypes_${op}_${column} "${column_definitions}" PARENT_SCOPE)
    endforeach()
  else()
    set(combos 1)
  endif()

  set(api aclnn${op})
  set(signature "aclnnStatus ${api}GetWorkspaceSize(${input_params}${attr_params}${output_params}uint64_t* workspaceSize, aclOpExecutor** executor)")
  set(run_signature "aclnnStatus ${api}(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream)")
  string(CONCAT prepare_body
      "    return ::npusim::ascendc::op::prepare(\"${api}GetWorkspaceSize\", \"${op}\", {${input_list}},\n"
      "                                          {${attr_values}}, {${output_list}}, workspaceSize, executor);\n}\n\n")
  set(tensor_declaration "")
  set(tensor_definition "")
  if(value_depend)
    set(tensor_signature "aclnnStatus ${api}TensorGetWorkspaceSize(${tensor_input_params}${attr_params}${output_params}uint64_t* workspaceSize, aclOpExecutor** executor)")
    set(tensor_declaration "${tensor_signature};\n")
    string(REPLACE "${api}GetWorkspaceSize" "${api}TensorGetWorkspaceSize" tensor_body "${prepare_body}")
    set(tensor_definition "extern \"C\" ${tensor_signature} {\n${tensor_body}")
  endif()
  file(WRITE ${gen_dir}/aclnn_${snake}.h.new
       "// Generated by npusim_add_ascendc_op: the two-phase aclnn API of ${op}.\n"
       "#pragma once\n#include <cstdint>\n\n#include \"acl/acl_base.h\"\n#include \"aclnn/acl_meta.h\"\n\n"
       "extern \"C\" {\n${signature};\n${tensor_declaration}${run_signature};\n}\n")
  string(REGEX REPLACE "void[ \t\r\n]+${snake}([ \t\r\n]*\\()" "void ${snake}_npusim_k\\1"
         renamed "${declaration}")
  set(kernel_ref ${snake}_npusim_k)
  set(kernel_declarations "${renamed};\n")
  if(combos GREATER 1)
    set(kernel_declarations "")
    set(kernel_list "")
    foreach(column RANGE ${last})
      string(REGEX REPLACE "void[ \t\r\n]+${snake}([ \t\r\n]*\\()" "void ${snake}_npusim_c${column}\\1"
             renamed "${declaration}")
      string(APPEND kernel_declarations "namespace npusim_c${column} {\n${renamed};\n}\n")
      string(APPEND kernel_list "npusim_c${column}::${snake}_npusim_c${column}, ")
    endforeach()
    set(kernel_ref "kernels")
    set(kernel_table "    static decltype(&npusim_c0::${snake}_npusim_c0) const kernels[]{${kernel_list}};\n")
  endif()
  file(WRITE ${gen_dir}/aclnn_${snake}.inc.new
       "// Generated by npusim_add_ascendc_op: ${op}'s aclnn API on npusim (npusim_ascendc/op_runtime.h),\n// compiled after the kernel source that defines ${snake}.\n"
       "#include \"npusim_ascendc/op_runtime.h\"\n#include \"aclnn_${snake}.h\"\n\n"
       "${kernel_declarations}\n"
       "extern \"C\" ${signature} {\n${prepare_body}${tensor_definition}"
       "extern \"C\" ${run_signature} {\n"
       "    static const ::npusim::ascendc::op::KernelTypes types{{${by_key}},\n"
       "        ::npusim::ascendc::to_kernel_type(${other_type})};\n${kernel_table}"
       "    return ::npusim::ascendc::op::launch(\"${api}\", ${kernel_ref}, \"${snake}\", types, workspace,\n"
       "                                         workspaceSize, executor, stream);\n}\n")
  # Rewritten only when changed, so a reconfigure does not rebuild.
  foreach(ext h inc)
    file(COPY_FILE ${gen_dir}/aclnn_${snake}.${ext}.new ${gen_dir}/aclnn_${snake}.${ext} ONLY_IF_DIFFERENT)
    file(REMOVE ${gen_dir}/aclnn_${snake}.${ext}.new)
  endforeach()
  set(dtypes_${op} "${dtype_definitions}" PARENT_SCOPE)
  set(${out_snake} ${snake} PARENT_SCOPE)
  set(combos ${combos} PARENT_SCOPE)
endfunction()

# The translation units of kernel source `source` (text `text`) for op `op` built once per data
# type combination: unit j defines DTYPE_<NAME> of combination j and wraps the source in
# namespace npusim_c<j> with the kernel renamed <snake>_npusim_c<j>, so the builds' classes and
# kernels do not collide; the source's includes from outside op_kernel/ come first, at global
# scope. The last unit also has the op's aclnn API, which launches the matching build.
function(_npusim_ascendc_op_combinations op snake source text kernel_dir gen_dir definitions
         kernel_options tiling_text out_units)
  get_filename_component(name ${source} NAME)
  _npusim_ascendc_outer_includes("${text}" ${kernel_dir} outer)
  list(APPEND definitions NPUSIM_OP_KERNEL_SIDE=1)
  if(tiling_text MATCHES "REGISTER_TILING_DATA_CLASS[ \t]*\\([ \t]*${op}[ \t]*,")
    list(APPEND definitions NPUSIM_TILING_OP=${op})
  endif()
  set(units "")
  math(EXPR last "${combos_${op}} - 1")
  foreach(column RANGE ${last})
    string(CONCAT unit "// Generated by npusim_add_ascendc_op: ${op}'s kernel for data type combination ${column}.\n"
             "${outer}${tiling_usings}#define ${snake} ${snake}_npusim_c${column}\nnamespace npusim_c${column} {\n"
             "#include \"${source}\"\n}  // namespace npusim_c${column}\n#undef ${snake}\n")
    if(column EQUAL last)
      string(APPEND unit "#include \"aclnn_${snake}.inc\"\n")
    endif()
    set(file ${gen_dir}/unit_c${column}_${name})
    file(WRITE ${file}.new "${unit}")
    file(COPY_FILE ${file}.new ${file} ONLY_IF_DIFFERENT)
    file(REMOVE ${file}.new)
    set_source_files_properties(${file} PROPERTIES
      COMPILE_DEFINITIONS "${definitions};${dtypes_${op}_${column}}" COMPILE_OPTIONS "${kernel_options}")
    list(APPEND units ${file})
  endforeach()
  set(${out_units} ${units} PARENT_SCOPE)
endfunction()

# The #include lines of kernel source text `text` that name no file in op_kernel/ (system and
# npusim headers), to be included before the kernel is renamed.
function(_npusim_ascendc_outer_includes text kernel_dir out)
  string(REGEX MATCHALL "#[ \t]*include[ \t]*[<\"][^>\"]+[>\"]" includes "${text}")
  set(outer "")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]" "\\1" file "${line}")
    if(NOT EXISTS ${kernel_dir}/${file})
      string(APPEND outer "${line}\n")
    endif()
  endforeach()
  set(${out} "${outer}" PARENT_SCOPE)
endfunction()
