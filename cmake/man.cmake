# SPDX-License-Identifier: GPL-2.0-only
#
# Man pages from the programs' own --help (help2man), so that a page never
# says other than the program: nxsim_man(TARGET NAME "what it is") makes
# NAME.1 beside TARGET and installs it with the Tools component.  Without
# help2man (tools/deps installs it) there are no pages, and configure says
# so.
find_program(NXSIM_HELP2MAN help2man)
if(NOT NXSIM_HELP2MAN)
	message(STATUS "nxsim: no help2man, no man pages")
endif()

function(nxsim_man target name what)
	if(NOT NXSIM_HELP2MAN)
		return()
	endif()
	set(page ${CMAKE_CURRENT_BINARY_DIR}/${name}.1)
	add_custom_command(OUTPUT ${page}
		COMMAND ${NXSIM_HELP2MAN} --no-info --section=1
			--source=libnxsim
			--version-string=${PROJECT_VERSION}
			--name=${what}
			--output=${page} $<TARGET_FILE:${target}>
		DEPENDS ${target}
		COMMENT "help2man ${name}.1"
		VERBATIM)
	add_custom_target(${target}_man ALL DEPENDS ${page})
	install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
		COMPONENT Tools)
endfunction()
