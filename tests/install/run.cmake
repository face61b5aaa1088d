# SPDX-License-Identifier: GPL-2.0-only
#
# Install the build tree under a DESTDIR at its own prefix and libdir (the
# shared preset's are /usr and the multiarch lib/<triplet>), then build and
# run consumers against it: the README example with find_package(nxsim) as
# C and as C++, a consumer's add_test() on nxsim::driver (a script, and the
# example plug-ins built on the installed headers), and the README's
# pkg-config lines exactly as written (only the prefix, the file name and
# the compiler's sanitizer flags put in).
# Inputs: SRC, BUILD, WORK, PREFIX, LIBDIR, SHARED, CC, CXX, SANITIZE.
function(run)
	execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "failed (${rc}): ${ARGV}")
	endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
set(root ${WORK}/root)
set(ENV{DESTDIR} ${root})
run(${CMAKE_COMMAND} --install ${BUILD})
unset(ENV{DESTDIR})
set(prefix ${root}${PREFIX})
if(IS_ABSOLUTE "${LIBDIR}")
	set(libdir ${root}${LIBDIR})
else()
	set(libdir ${prefix}/${LIBDIR})
endif()
foreach(f pkgconfig/nxsim.pc cmake/nxsim/nxsimConfig.cmake)
	if(NOT EXISTS ${libdir}/${f})
		message(FATAL_ERROR "not installed: ${libdir}/${f}")
	endif()
endforeach()
# The programs of a shared build find libnxsim.so under the DESTDIR.
if(SHARED)
	set(ENV{LD_LIBRARY_PATH} ${libdir})
endif()

set(flags "")
if(SANITIZE)
	set(flags "-fsanitize=${SANITIZE}")
endif()

# find_package()
run(${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/cmake
	-DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC}
	-DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_FLAGS=${flags}
	-DCMAKE_CXX_FLAGS=${flags} -DCMAKE_EXE_LINKER_FLAGS=${flags}
	-DEXAMPLE=${SRC}/examples/quickstart.c
	-DSCRIPT=${SRC}/examples/selftest.nxs
	-DPLUGINS=${SRC}/examples/plugins)
run(${CMAKE_COMMAND} --build ${WORK}/cmake)
run(${WORK}/cmake/quickstart)
run(${WORK}/cmake/quickstart-cxx)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK}/cmake --output-on-failure)

# pkg-config: the README's lines as a user pastes them.
file(READ ${SRC}/README.md readme)
string(REGEX MATCH "```sh\n(export PKG_CONFIG_PATH=[^`]*pkg-config[^`]*)```"
	block "${readme}")
if(NOT block)
	message(FATAL_ERROR "README.md: no export PKG_CONFIG_PATH block")
endif()
set(lines "${CMAKE_MATCH_1}")
string(REGEX MATCH "PKG_CONFIG_PATH=([^ \n]*)/lib/pkgconfig" m "${lines}")
file(RELATIVE_PATH pcrel ${prefix} ${libdir}/pkgconfig)
string(REPLACE "${CMAKE_MATCH_1}/lib/pkgconfig" "${prefix}/${pcrel}"
	lines "${lines}")
string(REGEX REPLACE "(^|\n)([ \t]*)cc app\\.c" "\\1\\2${CC} ${flags} ${SRC}/examples/quickstart.c -o ${WORK}/quickstart-pc"
	lines "${lines}")
file(WRITE ${WORK}/readme-pkg-config.sh "set -ex\n${lines}")
run(sh ${WORK}/readme-pkg-config.sh)
run(${WORK}/quickstart-pc)
message(STATUS "find_package (C, C++, add_test) and the README's pkg-config "
	"consumers built and ran")
