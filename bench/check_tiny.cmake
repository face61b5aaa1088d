# SPDX-License-Identifier: GPL-2.0-only
#
# ctest bench.tiny: run `nxsim-bench --tiny` and check its output, never its
# timings.  results.jsonl must hold one well-formed JSON object per line:
# first the run record (machine, commit, seed, the benchmarks selected),
# then figures, checks and published figures, each with the run identity;
# every benchmark of --list must have reported at least one figure, with
# its value also in SI units (value_si, unit_si); the CSV tables quote
# their string columns.  Then
# --compare of the run against itself finds no change, plots render in a
# folder named with quotes, and --version answers.
#   cmake -DBENCH=<nxsim-bench> -DOUT=<dir> -P check_tiny.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${BENCH} --list
	OUTPUT_VARIABLE list RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "nxsim-bench --list failed: ${rc}")
endif()
string(REGEX MATCHALL "(^|\n)[a-z0-9_]+" names "${list}")
list(TRANSFORM names STRIP)
list(LENGTH names nr_names)
if(nr_names EQUAL 0)
	message(FATAL_ERROR "nxsim-bench --list names no benchmark")
endif()

file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${BENCH} --tiny --seed 7 --out ${OUT}
	OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "nxsim-bench --tiny failed: ${rc}\n${table}")
endif()
if(NOT table MATCHES "^[^\n]*\n[^\n]*\n\nsummary ")
	message(FATAL_ERROR "the summary does not come first:\n${table}")
endif()
if(NOT table MATCHES "figure +value +reps +reference +ratio +ratio reps +target +verdict +adds")
	message(FATAL_ERROR "no table of figures on stdout:\n${table}")
endif()

if(NOT EXISTS ${OUT}/summary.txt)
	message(FATAL_ERROR "no ${OUT}/summary.txt")
endif()

file(STRINGS ${OUT}/results.jsonl lines)
list(LENGTH lines nr_lines)
if(nr_lines LESS 2)
	message(FATAL_ERROR "results.jsonl has ${nr_lines} lines")
endif()

set(seen "")
set(lineno 0)
foreach(line IN LISTS lines)
	math(EXPR lineno "${lineno} + 1")
	string(JSON type ERROR_VARIABLE err GET "${line}" type)
	if(err)
		message(FATAL_ERROR "line ${lineno} is not JSON: ${err}\n${line}")
	endif()
	foreach(key bench figure run.commit run.seed run.mode
			run.machine.nproc run.machine.cpu run.machine.kernel)
		string(REPLACE "." ";" path ${key})
		string(JSON val ERROR_VARIABLE err GET "${line}" ${path})
		if(err)
			message(FATAL_ERROR "line ${lineno}: no ${key}\n${line}")
		endif()
	endforeach()
	string(JSON seed GET "${line}" run seed)
	if(NOT seed EQUAL 7)
		message(FATAL_ERROR "line ${lineno}: seed ${seed}, not 7")
	endif()
	if(lineno EQUAL 1)
		if(NOT type STREQUAL "run")
			message(FATAL_ERROR "line 1 is a ${type}, not the run")
		endif()
		continue()
	endif()
	string(JSON bench GET "${line}" bench)
	if(type STREQUAL "figure")
		foreach(key unit value ref ratio target met verdict modelled
				reps rep_values spread calib_ns_per_add
				value_in_adds params unit_si value_si ref_si)
			string(JSON val ERROR_VARIABLE err GET "${line}" ${key})
			if(err)
				message(FATAL_ERROR
					"line ${lineno}: no ${key}\n${line}")
			endif()
		endforeach()
		string(JSON value GET "${line}" value)
		if(value STREQUAL "null")
			message(FATAL_ERROR "line ${lineno}: no value\n${line}")
		endif()
		# value_si is value in SI units: a time in seconds
		string(JSON unit GET "${line}" unit)
		string(JSON unit_si GET "${line}" unit_si)
		if(unit MATCHES "^(ns|us|ms)$" AND NOT unit_si STREQUAL "s")
			message(FATAL_ERROR "line ${lineno}: ${unit} is not "
				"in seconds (${unit_si})\n${line}")
		endif()
		if(unit STREQUAL "ns")
			string(JSON value_si GET "${line}" value_si)
			if(value GREATER 0 AND NOT value_si MATCHES "e-|^0\\.")
				message(FATAL_ERROR "line ${lineno}: ${value} ns "
					"is ${value_si} s\n${line}")
			endif()
		endif()
		list(APPEND seen ${bench})
	elseif(type STREQUAL "check" OR type STREQUAL "published")
		string(JSON text ERROR_VARIABLE err GET "${line}" text)
		if(err)
			message(FATAL_ERROR "line ${lineno}: no text\n${line}")
		endif()
	else()
		message(FATAL_ERROR "line ${lineno}: unknown type ${type}")
	endif()
endforeach()

# The CSV tables quote their string columns: a profile "5.10" stays text.
foreach(pair "nx_guest.csv|^\"[a-z]+\",\"[0-9.]+\",\"[a-z]+\",[0-9]"
		"vm_bringup.csv|^[0-9]+,[0-9]+,\"[a-z]+\",[01],\"[a-z_]+\",[0-9]"
		"xpfo_flush_compile.csv|^\"[a-z0-9_-]+\",[0-9]+,[0-9]")
	string(REPLACE "|" ";" pair "${pair}")
	list(GET pair 0 csv)
	list(GET pair 1 re)
	file(STRINGS ${OUT}/${csv} rows LIMIT_COUNT 2)
	list(GET rows 1 row)
	if(NOT row MATCHES "${re}")
		message(FATAL_ERROR "${csv}: string columns not quoted: ${row}")
	endif()
endforeach()

foreach(name IN LISTS names)
	if(NOT name IN_LIST seen)
		message(FATAL_ERROR "benchmark ${name} reported no figure")
	endif()
endforeach()
execute_process(COMMAND ${BENCH} --compare ${OUT}/results.jsonl
		--against ${OUT}/results.jsonl
	OUTPUT_VARIABLE cmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT cmp MATCHES "\n0 worse, 0 better, [0-9]+ within the reps' spread, 0 new, 0 gone\n")
	message(FATAL_ERROR "--compare of a run with itself (${rc}):\n${cmp}")
endif()
# The plots render in a folder whose name a shell would misread (gnuplot is
# started with an argv, in the folder), and their .gp name no folder.
set(odd "${OUT}-it's \"odd\"")
file(REMOVE_RECURSE "${odd}")
execute_process(COMMAND ${BENCH} --tiny --only worker_wake --out "${odd}"
	OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "nxsim-bench --out \"${odd}\" failed: ${rc}")
endif()
file(GLOB gps "${odd}/*.gp")
if(NOT gps)
	message(FATAL_ERROR "no plots in ${odd}")
endif()
foreach(gp IN LISTS gps)
	file(READ "${gp}" text)
	if(text MATCHES "${OUT}")
		message(FATAL_ERROR "${gp} names its folder")
	endif()
	string(REGEX REPLACE "\\.gp$" ".png" png "${gp}")
	find_program(gnuplot gnuplot)
	if(gnuplot AND NOT EXISTS "${png}")
		message(FATAL_ERROR "gnuplot drew no ${png}: ${err}")
	endif()
endforeach()
file(REMOVE_RECURSE "${odd}")

execute_process(COMMAND ${BENCH} --version
	OUTPUT_VARIABLE version RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT version MATCHES "^nxsim-bench \\(libnxsim\\) [0-9]+\\.[0-9]+\\.[0-9]+")
	message(FATAL_ERROR "--version (${rc}): ${version}")
endif()
message(STATUS "${nr_lines} JSON lines, benchmarks: ${names}")
