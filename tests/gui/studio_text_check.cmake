# opevo-studio without any display: --help and --version print and exit 0, and asking for the
# window says what is missing instead of Qt's abort. Run with DISPLAY, WAYLAND_DISPLAY and
# QT_QPA_PLATFORM unset (see CMakeLists.txt).
foreach(name DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM)
  if(DEFINED ENV{${name}})
    message(FATAL_ERROR "${name} is still set; this check needs a machine with no display")
  endif()
endforeach()

function(expect args want_rc want_text)
  execute_process(COMMAND ${STUDIO} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 30)
  if(NOT rc STREQUAL "${want_rc}")
    message(FATAL_ERROR "opevo-studio ${args}: exit ${rc}, expected ${want_rc}\n${out}${err}")
  endif()
  string(FIND "${out}${err}" "${want_text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "opevo-studio ${args}: no '${want_text}' in\n${out}${err}")
  endif()
endfunction()

expect("--version" 0 "OpEvo Studio ${VERSION}")
expect("--help" 0 "--dataset <file>")
expect("-h" 0 "--open-latest-race")
expect("--page;runs" 1 "no display to open a window on")
expect("--version;--no-such-option" 1 "no-such-option")
