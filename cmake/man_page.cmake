# Writes superstep(1) from `superstep --help`: cmake -DPROGRAM=... -DOUT=... -DVERSION=... -P
execute_process(COMMAND ${PROGRAM} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --help failed (${rc}): ${err}")
endif()
# troff: a leading dot or quote would be read as a request; backslashes are escapes.
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
string(TIMESTAMP today "%Y-%m-%d" UTC)
file(WRITE ${OUT} ".TH SUPERSTEP 1 \"${today}\" \"superstep ${VERSION}\" \"User Commands\"
.SH NAME
superstep \\- run LangGraph-style graphs from JSON specs, in one process or on a cluster
.SH DESCRIPTION
.nf
${help}
.fi
.SH SEE ALSO
The README and docs/ of the superstep sources.
")
