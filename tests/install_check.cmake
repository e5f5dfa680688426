# Installs the build into a fresh prefix and checks what a user or a desktop environment finds.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${err}")
endif()
set(expected bin/opevo bin/opevo-worker bin/opevo-agent
    share/opevo-studio/datasets/LICENSE-benchmark_hub.txt
    share/opevo-studio/datasets/gemm/RTX_2080_Ti.json.gz
    share/opevo-studio/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz
    share/opevo-studio/doc/README.md share/opevo-studio/doc/docs/kas.md
    share/opevo-studio/doc/docs/screenshots/main-window.png)
if(GUI)
  list(APPEND expected bin/opevo-studio share/applications/opevo-studio.desktop
       share/icons/hicolor/scalable/apps/opevo-studio.svg)
endif()
foreach(f IN LISTS expected)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(GUI)
  file(READ ${PREFIX}/share/applications/opevo-studio.desktop desktop)
  # Exec by the installed path, quoted (a prefix may hold spaces): a launcher works without the
  # prefix's bin on PATH.
  foreach(line "\nExec=\"${PREFIX}/bin/opevo-studio\"\n" "TryExec=${PREFIX}/bin/opevo-studio\n"
          "Icon=opevo-studio" "Type=Application")
    string(FIND "${desktop}" "${line}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the installed .desktop file lacks '${line}'")
    endif()
  endforeach()
endif()
# The installed CLI runs, and lists the worker-backed cpu backend as available.
execute_process(COMMAND ${PREFIX}/bin/opevo devices RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed opevo devices failed (${rc}): ${err}")
endif()
string(FIND "${out}" "cpu" at)
if(at EQUAL -1)
  message(FATAL_ERROR "installed opevo devices does not list cpu: ${out}")
endif()
# One CPU trial through the installed CLI: it must find the installed worker beside itself.
file(WRITE ${PREFIX}/mm.json [=[{"name": "mm_install", "kind": "matmul", "shape": {"n": 32, "m": 32, "k": 32}}]=])
execute_process(COMMAND ${PREFIX}/bin/opevo tune --op ${PREFIX}/mm.json --backend cpu --trials 1
                        --min-time-ms 1 --db ${PREFIX}/runs.db --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed opevo tune failed (${rc}): ${err}")
endif()
string(FIND "${out}" "\"trials\": 1" at)
if(at EQUAL -1)
  message(FATAL_ERROR "installed opevo tune did not measure its trial: ${out}")
endif()
# The installed CLI reads the shipped data by the README's names and by bare ones, from a folder
# that holds neither (it once said "cannot open" for both), and says where it looked for a name
# that is nowhere.
set(shipped ${PREFIX}/share/opevo-studio)
file(MAKE_DIRECTORY ${PREFIX}/elsewhere)
foreach(name gemm/RTX_2080_Ti.json.gz resources/datasets/gemm/RTX_2080_Ti.json.gz
        resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz)
  execute_process(COMMAND ${PREFIX}/bin/opevo dataset ${name} --json
                  WORKING_DIRECTORY ${PREFIX}/elsewhere
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed opevo dataset ${name} failed (${rc}): ${err}")
  endif()
  string(REGEX REPLACE "^resources/(datasets|measurements)/" "" below "${name}")
  string(FIND "${out}" "\"file\": \"${shipped}/" at)
  if(at EQUAL -1 OR NOT out MATCHES "${below}")
    message(FATAL_ERROR "installed opevo dataset ${name} did not read the installed copy: ${out}")
  endif()
endforeach()
execute_process(COMMAND ${PREFIX}/bin/opevo dataset gemm/none.json.gz
                WORKING_DIRECTORY ${PREFIX}/elsewhere
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "${shipped}/datasets/gemm/none.json.gz" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "a missing dataset's message does not say where it was looked for: ${err}")
endif()
# A race and an import from the shipped files alike.
execute_process(COMMAND ${PREFIX}/bin/opevo compare --space gemm/RTX_2080_Ti.json.gz --trials 10
                        --repeats 1 --out ${PREFIX}/elsewhere/race --quiet
                WORKING_DIRECTORY ${PREFIX}/elsewhere
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${PREFIX}/elsewhere/race/trials.csv)
  message(FATAL_ERROR "installed opevo compare on a shipped dataset failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${PREFIX}/bin/opevo import --restore
                        resources/measurements/h200/2026-11-27/MM1_opevo_seed1.json.gz
                        --op MM1 --seed 1 --db ${PREFIX}/runs.db
                WORKING_DIRECTORY ${PREFIX}/elsewhere
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed opevo import --restore of a shipped run failed (${rc}): ${err}")
endif()
file(REMOVE_RECURSE ${PREFIX})
