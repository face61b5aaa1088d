# SPDX-License-Identifier: GPL-2.0-only
#
# Every public header compiles alone, as C11 and as C++11, with warnings as
# errors: it includes what it uses, and a header that declares functions
# wraps them in extern "C" so a C++ program links them (docs/api.md).
# Inputs: SRC (the source tree), WORK (a scratch directory), CC, CXX.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(GLOB headers ${SRC}/include/nxsim/*.h)
set(warn -Wall -Wextra -Werror -pedantic)
foreach(h IN LISTS headers)
	get_filename_component(name ${h} NAME_WE)
	file(READ ${h} text)
	if(text MATCHES "\nNXSIM_API " AND NOT text MATCHES "extern \"C\" {")
		message(SEND_ERROR "${name}.h: NXSIM_API without extern \"C\"")
	endif()
	# Use NXSIM_NEVER: a macro's own includes are checked only where it
	# expands (common.h's UINT64_MAX).
	file(WRITE ${WORK}/${name}.c
		"#include <nxsim/${name}.h>\n"
		"#ifdef NXSIM_NEVER\n"
		"unsigned long long nxsim_check_never(void);\n"
		"unsigned long long nxsim_check_never(void)\n"
		"{\n\treturn NXSIM_NEVER;\n}\n"
		"#endif\n")
	configure_file(${WORK}/${name}.c ${WORK}/${name}.cpp COPYONLY)
	foreach(lang c cpp)
		if(lang STREQUAL "c")
			set(cmd ${CC} -std=c11 ${warn} -Wstrict-prototypes)
		else()
			set(cmd ${CXX} -std=c++11 ${warn})
		endif()
		execute_process(COMMAND ${cmd} -I${SRC}/include -fsyntax-only
				${WORK}/${name}.${lang}
			RESULT_VARIABLE rc ERROR_VARIABLE err)
		if(NOT rc EQUAL 0)
			message(SEND_ERROR "${name}.h as ${lang}:\n${err}")
		endif()
	endforeach()
endforeach()
list(LENGTH headers n)
message(STATUS "${n} headers compiled alone as C and as C++")
