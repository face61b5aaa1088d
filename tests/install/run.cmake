# SPDX-License-Identifier: GPL-2.0-only
#
# Install the build tree to a fresh prefix, then build and run the README
# example against it three times: with find_package(nxsim) as C and as
# C++, and with pkg-config.
# Inputs: SRC, BUILD, WORK, SHARED, CC, CXX, SANITIZE.
function(run)
	execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "failed (${rc}): ${ARGV}")
	endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})

set(flags "")
if(SANITIZE)
	set(flags "-fsanitize=${SANITIZE}")
endif()

# find_package()
run(${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/cmake
	-DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC}
	-DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_FLAGS=${flags}
	-DCMAKE_CXX_FLAGS=${flags} -DCMAKE_EXE_LINKER_FLAGS=${flags}
	-DEXAMPLE=${SRC}/examples/quickstart.c)
run(${CMAKE_COMMAND} --build ${WORK}/cmake)
run(${WORK}/cmake/quickstart)
run(${WORK}/cmake/quickstart-cxx)

# pkg-config
file(GLOB_RECURSE pcfile ${prefix}/*/nxsim.pc)
get_filename_component(pcdir ${pcfile} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
set(static "")
if(NOT SHARED)
	set(static "--static")
endif()
execute_process(COMMAND pkg-config --cflags --libs ${static} nxsim
	OUTPUT_VARIABLE pcflags OUTPUT_STRIP_TRAILING_WHITESPACE
	RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "pkg-config nxsim failed")
endif()
separate_arguments(pcflags UNIX_COMMAND "${pcflags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
set(rpath "")
if(SHARED)
	string(REGEX MATCH "-L[^ ;]+" libdir "${pcflags}")
	string(SUBSTRING "${libdir}" 2 -1 libdir)
	set(rpath "-Wl,-rpath,${libdir}")
endif()
run(${CC} ${flags} ${SRC}/examples/quickstart.c ${pcflags} ${rpath}
	-o ${WORK}/quickstart-pc)
run(${WORK}/quickstart-pc)
message(STATUS "find_package (C, C++) and pkg-config consumers built and ran")
