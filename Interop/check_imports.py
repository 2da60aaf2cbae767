"""Checks that every module a target's Swift files import is declared in Package.swift: one of the target's
dependencies (a target, or a product named as its module), or a module of the toolchain. A module imported but not
declared builds only because another dependency happens to bring it (the layering drifts without anyone seeing).
Then checks the layers: APNSimRules imports nothing that does I/O, locks or runs event loops, and calls nothing that
reads files, the environment or processes; only the gateway and the device (and the tests of the link, the two of them
and the fuzzer's) depend on APNSimDeviceLink. Then checks that README.md's module graph (between `<!-- module graph -->`
and `<!-- end module graph -->`) is the one Package.swift declares.
Usage: check_imports.py PACKAGE_ROOT"""
import json
import os
import re
import subprocess
import sys

root = sys.argv[1]
toolchain = {"Foundation", "FoundationNetworking", "FoundationEssentials", "Dispatch", "Glibc", "Darwin", "Synchronization",
             "_Concurrency", "Testing", "XCTest", "PackageDescription", "PackagePlugin", "os", "Musl", "Android", "WinSDK"}
package = json.loads(subprocess.run(["swift", "package", "--package-path", root, "dump-package"],
                                    check=True, capture_output=True, text=True).stdout)
problems = 0
pattern = re.compile(r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:class|struct|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)
for target in package["targets"]:
    if target["type"] == "plugin":
        continue
    declared = {target["name"]}
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        declared.add(value[0])
    folder = os.path.join(root, target.get("path") or ("Tests" if target["type"] == "test" else "Sources") + "/" + target["name"])
    excluded = [os.path.join(folder, e) for e in target.get("exclude", [])]
    for directory, _, names in os.walk(folder):
        if any(directory == e or directory.startswith(e + "/") for e in excluded):
            continue
        for name in names:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            # `#if canImport(X)` guards an optional import; such a module is not a dependency.
            text = open(path, encoding="utf-8").read()
            guarded = set(re.findall(r"canImport\(([A-Za-z_][A-Za-z0-9_]*)\)", text))
            for module in pattern.findall(text):
                # A lower-case name is another language's import inside a string (a Python script a test writes).
                if module[0].islower() and module not in toolchain:
                    continue
                if module not in declared and module not in toolchain and module not in guarded:
                    problems += 1
                    print(f"{os.path.relpath(path, root)}: imports {module}, which target {target['name']} does not declare in Package.swift")
print(f"{len(package['targets'])} targets' imports checked against Package.swift, {problems} problems")

# The rules module: values and rules only (docs/architecture.md). What it may not import, and what it may not call.
forbidden_imports = {"Glibc", "Darwin", "Musl", "Dispatch", "Synchronization", "FoundationNetworking", "NIOCore", "NIOPosix",
                     "NIOConcurrencyHelpers", "Logging", "GRDB", "Subprocess", "SystemPackage", "System"}
forbidden_calls = re.compile(r"\b(FileManager|FileHandle|Data\(contentsOf|String\(contentsOf|contentsOfFile|fopen|fread|fwrite|"
                             r"getenv|setenv|ProcessInfo|Process\(|posix_spawn|Mutex|Atomic|DispatchQueue|Thread\.|Task\.sleep|"
                             r"URLSession|dlsym|mallopt|sysconf)\b")
def swift_lines(folder):
    """Each line of code (comments cut) of the Swift files under `folder`, as (path from the root, line number, code)."""
    for directory, _, names in os.walk(os.path.join(root, folder)):
        for name in sorted(name for name in names if name.endswith(".swift")):
            path = os.path.join(directory, name)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                yield os.path.relpath(path, root), number, line.split("//", 1)[0]


rules_files = set()
for path, number, code in swift_lines("Sources/APNSimRules"):
    rules_files.add(path)
    imported = pattern.match(code)
    if imported and imported.group(1) in forbidden_imports:
        problems += 1
        print(f"{path}:{number}: imports {imported.group(1)}; APNSimRules holds values and rules only (docs/architecture.md)")
    called = forbidden_calls.search(code)
    if called:
        problems += 1
        print(f"{path}:{number}: uses {called.group(1)}; APNSimRules reads no file, environment or process and holds no lock (docs/architecture.md)")
print(f"APNSimRules: {len(rules_files)} files checked for I/O, locks and event loops")

# One owner per fact (docs/architecture.md, "What the gateway owns and what the device owns"): what a device decides of
# its Live Activities and budgets (a push applied, an end, the 8-hour limit, the order shown, a budget spent) is decided
# on the device, and the gateway shows the device's last report. The gateway may read a report against its clock
# (stale, visible, what is left of a budget); it calls none of the rules that change or order activities.
device_rules = re.compile(r"(\.endByApp\(|\.age\(now:|\.end\(at:[^)]*dismissal:|\bdisplayOrder\(|\bdisplaySequence\(|\.spend\(of:|"
                          r"\bactivity\.apply\(|\$0\.apply\()")
gateway_files = set()
for path, number, code in swift_lines("Sources/APNSimGateway"):
    gateway_files.add(path)
    called = device_rules.search(code)
    if called:
        problems += 1
        print(f"{path}:{number}: calls {called.group(1)}, a rule the device applies; the gateway shows the device's report of it "
              "(docs/architecture.md)")
print(f"APNSimGateway: {len(gateway_files)} files checked for Live Activity and budget rules, which are the device's")

# The device link: the gateway and the device speak it; no other module depends on it.
link_users = {"APNSimGateway", "APNSimDevice", "APNSimGatewayTests", "APNSimEndToEndTests", "APNSimDeviceTests", "APNSimDeviceLinkTests", "APNSimFuzzTests"}
for target in package["targets"]:
    inner = {next(iter(d.values()))[0] for d in target["dependencies"]}
    if "APNSimDeviceLink" in inner and target["name"] not in link_users:
        problems += 1
        print(f"{target['name']} depends on APNSimDeviceLink; only {', '.join(sorted(link_users))} may (docs/architecture.md)")

# Tests: a test target per library module, named for it; exactly one test target depends on the apnsim executable (the
# end-to-end tests), so touching a module's unit tests builds no end-to-end test.
libraries = [t["name"] for t in package["targets"] if t["type"] == "regular" and not (t.get("path") or "").startswith("Tests/")]
tests = {t["name"] for t in package["targets"] if t["type"] == "test"}
for library in libraries:
    if library + "Tests" not in tests:
        problems += 1
        print(f"library module {library} has no test target {library}Tests in Package.swift")
on_executable = [t["name"] for t in package["targets"]
                 if t["type"] == "test" and "apnsim" in {next(iter(d.values()))[0] for d in t["dependencies"]}]
if len(on_executable) != 1:
    problems += 1
    print(f"{len(on_executable)} test targets depend on the apnsim executable ({', '.join(on_executable) or 'none'}); exactly one may")
print(f"{len(libraries)} library modules, each with its test target; {', '.join(on_executable)} the one test target on the apnsim executable")

# The module graph: each library and executable target of apnsim, and the apnsim targets it depends on (not the build
# tool, nor what Benchmarks/ builds: neither is part of apnsim).
names = {target["name"] for target in package["targets"]}
graph = []
for target in package["targets"]:
    if target["type"] in ("test", "plugin") or target["name"] == "EmbedFilesTool" or (target.get("path") or "").startswith("Benchmarks/"):
        continue
    inner = [next(iter(d.values()))[0] for d in target["dependencies"] if next(iter(d.values()))[0] in names]
    graph.append(f"{target['name']} → {', '.join(inner) if inner else 'nothing of apnsim'}")
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
match = re.search(r"<!-- module graph -->\n```\n(.*?)```\n<!-- end module graph -->", readme, re.S)
written = match.group(1).strip().splitlines() if match else []
if written != graph:
    problems += 1
    print("README.md's module graph is not Package.swift's; it should read:\n" + "\n".join(graph))
else:
    print(f"README.md's module graph matches Package.swift ({len(graph)} modules)")
sys.exit(1 if problems else 0)
