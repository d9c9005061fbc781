# Sourced by the checks that run tests/dotnet/workload (capture, live, stacks, config).
#   need_workload WORK_DIR SOURCE_DIR WHAT_WAS_NOT_DONE
# sets $workload to the directory of workload.dll: the one CTest's fixture dotnet_workload built once
# for all of them (CLRETW_WORKLOAD), else one built afresh into WORK_DIR/workload. Without dotnet on
# the PATH the check is skipped (exit 0, saying what was not done); a workload that does not build
# fails it (exit 1, with the build's log).
build_workload() {  # build_workload DIR SOURCE_DIR: DIR/bin/workload.dll
  rm -rf "$1" && mkdir -p "$1/src"
  cp "$2/tests/dotnet/workload/workload.csproj" "$2/tests/dotnet/workload/Program.cs" "$1/src/"
  if ! timeout 300 dotnet build "$1/src/workload.csproj" -c Release -o "$1/bin" --nologo -v quiet > "$1/build.log" 2>&1; then
    cat "$1/build.log"
    echo "FAIL: the workload does not build"
    exit 1
  fi
}
need_workload() {
  if ! command -v dotnet >/dev/null 2>&1; then
    echo "SKIPPED: dotnet is not on the PATH; $3"
    exit 0
  fi
  mkdir -p "$1"
  if [ -n "${CLRETW_WORKLOAD:-}" ]; then
    workload=$CLRETW_WORKLOAD/bin
    [ -f "$workload/workload.dll" ] || { echo "FAIL: $workload/workload.dll is missing: the fixture dotnet_workload did not build it"; exit 1; }
  else
    build_workload "$1/workload" "$2"
    workload=$1/workload/bin
  fi
}
