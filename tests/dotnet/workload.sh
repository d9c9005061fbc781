# Sourced by live_check.sh and stacks_check.sh: tests/dotnet/workload built afresh into $work/bin.
#   need_workload WORK_DIR SOURCE_DIR WHAT_WAS_NOT_DONE
# Without dotnet on the PATH the check is skipped (exit 0, saying what was not done); a workload that
# does not build fails it (exit 1, with the build's log).
need_workload() {
  if ! command -v dotnet >/dev/null 2>&1; then
    echo "SKIPPED: dotnet is not on the PATH; $3"
    exit 0
  fi
  rm -rf "$1" && mkdir -p "$1/src"
  cp "$2/tests/dotnet/workload/workload.csproj" "$2/tests/dotnet/workload/Program.cs" "$1/src/"
  if ! timeout 300 dotnet build "$1/src/workload.csproj" -c Release -o "$1/bin" --nologo -v quiet > "$1/build.log" 2>&1; then
    cat "$1/build.log"
    echo "FAIL: the workload does not build"
    exit 1
  fi
}
