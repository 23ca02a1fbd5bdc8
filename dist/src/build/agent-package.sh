#!/bin/sh
# Builds the self-contained agent package, OUT_DIR/drover-agent-VERSION-linux-ARCH.tar.gz (and its .sha256): a Java
# runtime made by jlink with only the modules the agent uses, the agent's jars (the server-only ones left out), the
# launcher bin/drover-agent, VERSION and ARCH. No JDK is needed on the host. The architecture is the build JDK's: an
# aarch64 package is built the same way by an aarch64 JDK (docs/operations.md, "Installing agents").
# Usage: agent-package.sh LIB_DIR CLASSES_DIR VERSION JAVA_HOME OUT_DIR
set -e
lib=$1; classes=$2; version=$3; jdk=$4; out=$5
src=$(cd "$(dirname "$0")/.." && pwd)
case "$(uname -m)" in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) echo "agent-package: no agent package for the architecture $(uname -m)" >&2; exit 1 ;;
esac
[ -x "$jdk/bin/jlink" ] || { echo "agent-package: $jdk has no jlink (a JDK, not a JRE, builds the package)" >&2; exit 1; }
name=drover-agent-$version-linux-$arch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg=$work/$name
mkdir -p "$pkg/bin" "$pkg/lib"

patterns=$(grep -v '^#' "$src/dist/lib/server-only-jars")
for jar in "$lib"/*.jar; do
  skip=
  set -f
  for pattern in $patterns; do
    case "${jar##*/}" in $pattern) skip=1; break ;; esac
  done
  set +f
  [ -n "$skip" ] || cp "$jar" "$pkg/lib/"
done
# the launcher's own classes (io.drover.dist.AgentMain and the agent's command line), as a jar
"$jdk/bin/jar" --create --file "$pkg/lib/drover-dist-$version.jar" -C "$classes" .
cp "$src/dist/lib/agent-jvm-options" "$pkg/lib/"

# The modules the agent's code uses (jdeps, per jar): java.naming and java.security.sasl for AMQP, java.net.http for
# downloads, java.sql for Jackson's date types. Not java.desktop: only the server's template engine (java.beans) and
# helpers of libraries the agent does not call need it, and it would add 10 MiB. No --compress: the tarball compresses
# the runtime better (23 MiB against 28 MiB with zip-6), and a compressed image (even zip-0) is read through whole-file
# mappings that left 8-17 MiB of lib/modules resident in an idle agent, against 1.5 MiB without.
modules=java.base,java.logging,java.management,java.naming,java.net.http,java.security.sasl,java.sql,java.xml,jdk.net,jdk.unsupported,jdk.zipfs
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --output "$pkg/runtime"

cp "$src/agent-package/bin/drover-agent" "$pkg/bin/drover-agent"
chmod 755 "$pkg/bin/drover-agent"
echo "$version" > "$pkg/VERSION"
echo "$arch" > "$pkg/ARCH"

mkdir -p "$out"
rm -f "$out"/drover-agent-*.tar.gz "$out"/drover-agent-*.tar.gz.sha256
(cd "$work" && find "$name" -print | LC_ALL=C sort | tar --owner=0 --group=0 --numeric-owner --no-recursion -czf "$out/$name.tar.gz" -T -)
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "agent package: $out/$name.tar.gz ($(du -k "$out/$name.tar.gz" | cut -f1) KiB)"
