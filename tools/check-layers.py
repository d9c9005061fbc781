#!/usr/bin/env python3
"""Holds every #include of clretw's code against its layers (tools/layers.txt).

A file may include the headers of its own layer, of the layers its layer names and of every layer below
those; a project header of any other layer (a higher one, or one beside it) is a violation, and so is a
third-party header where the rules do not name it. An include is resolved as the compiler would find it:
beside the including file, then in the layers' include folders (runtime/*/include, generator/*/include,
generated/, tools/). Headers found nowhere in the project are the standard library's or the OS's.

  tools/check-layers.py [--root DIR] [--rules FILE]
Prints each violation as FILE:LINE: message and a summary line; exit status 0 clean, 1 violations,
2 unusable rules (an unknown layer, a folder that does not exist, a cycle).
"""
import argparse
import os
import re
import sys

SOURCE = (".h", ".hpp", ".cpp", ".cc", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# Headers of the libraries the project may use somewhere, by the path an #include names.
THIRD_PARTY = ("pugixml.hpp", "CLI/", "mustache.hpp", "doctest/", "benchmark/")


def fail_rules(message):
    print("check-layers: " + message, file=sys.stderr)
    sys.exit(2)


def read_rules(path, root):
    """{layer: (folders, direct lower layers, allowed third-party prefixes)}, in file order."""
    layers = {}
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if ":" not in line:
                fail_rules("%s:%d: no ':' in '%s'" % (path, number, line))
            head, tail = line.split(":", 1)
            words = head.split()
            below, _, extra = tail.partition("+")
            if len(words) < 2:
                fail_rules("%s:%d: a layer needs a name and a folder" % (path, number))
            name, folders = words[0], words[1:]
            for folder in folders:
                if not os.path.isdir(os.path.join(root, folder)):
                    fail_rules("%s:%d: layer %s: no folder %s" % (path, number, name, folder))
            for b in below.split():
                if b not in layers:
                    fail_rules("%s:%d: layer %s names %s, which is not a layer above it in the file" % (path, number, name, b))
            layers[name] = (folders, below.split(), extra.split())
    return layers


def closure(layers):
    """Every layer each layer may include: itself and all it reaches through the rules."""
    reach = {}
    for name, (_, below, _) in layers.items():  # file order: the layers below come first
        allowed = {name}
        for b in below:
            allowed |= reach[b]
        reach[name] = allowed
    return reach


def include_dirs(root, layers):
    """The folders an #include <...> or "..." is looked up in, as CMakeLists.txt sets them."""
    dirs = []
    for folders, _, _ in layers.values():
        for folder in folders:
            inc = os.path.join(root, folder, "include")
            dirs.append(inc if os.path.isdir(inc) else os.path.join(root, folder))
    dirs.append(os.path.join(root, "tools"))  # "common/print_options.h"
    return dirs


def owner(path, root, layers):
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    for name, (folders, _, _) in layers.items():
        for folder in folders:
            if rel == folder or rel.startswith(folder.rstrip("/") + "/"):
                return name
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.dirname(here), help="the source tree (default: this checkout)")
    parser.add_argument("--rules", help="the rules (default: ROOT/tools/layers.txt)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    layers = read_rules(args.rules or os.path.join(root, "tools", "layers.txt"), root)
    reach = closure(layers)
    dirs = include_dirs(root, layers)

    violations = files = includes = 0
    for name, (folders, _, extra) in layers.items():
        for folder in folders:
            for top, subdirs, names in os.walk(os.path.join(root, folder)):
                subdirs.sort()
                for file_name in sorted(names):
                    if not file_name.endswith(SOURCE):
                        continue
                    path = os.path.join(top, file_name)
                    files += 1
                    with open(path, encoding="utf-8", errors="replace") as f:
                        lines = f.readlines()
                    for number, text in enumerate(lines, 1):
                        m = INCLUDE.match(text)
                        if not m:
                            continue
                        includes += 1
                        quote, target = m.group(1), m.group(2)
                        where = "%s:%d" % (os.path.relpath(path, root), number)
                        party = next((p for p in THIRD_PARTY if target.startswith(p)), None)
                        if party:
                            if party not in extra:
                                print("%s: layer %s includes %s, a third-party header its rules do not allow" % (where, name, target))
                                violations += 1
                            continue
                        candidates = ([os.path.join(top, target)] if quote == '"' else []) + [os.path.join(d, target) for d in dirs]
                        found = next((c for c in candidates if os.path.isfile(c)), None)
                        if not found:
                            continue  # the standard library's or the OS's
                        theirs = owner(os.path.normpath(found), root, layers)
                        if theirs is None:
                            print("%s: layer %s includes %s, which belongs to no layer" % (where, name, target))
                            violations += 1
                        elif theirs not in reach[name]:
                            print("%s: layer %s includes %s of layer %s, which is not below it (tools/layers.txt)" %
                                  (where, name, target, theirs))
                            violations += 1
    print("check-layers: %d layers, %d files, %d includes: %s" %
          (len(layers), files, includes, "%d violation(s)" % violations if violations else "every include keeps to the layers"))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
