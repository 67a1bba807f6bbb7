package io.gpufleet.core.lambda;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The TCP sockets this process holds, read from Linux's {@code /proc/self/fd} (socket inodes) and
 * {@code /proc/self/net/tcp}, {@code tcp6} (their ports and states): what proves that priming left
 * no connection or listening socket behind for a snapshot to carry. Empty where there is no {@code
 * /proc} (not Linux).
 */
public final class ProcSockets {
  /** One socket of this process: local and remote port, and the kernel's state name. */
  public record Socket(int localPort, int remotePort, String state) {
    public boolean touches(int port) {
      return localPort == port || remotePort == port;
    }
  }

  private static final String[] STATES = {
    "?",
    "ESTABLISHED",
    "SYN_SENT",
    "SYN_RECV",
    "FIN_WAIT1",
    "FIN_WAIT2",
    "TIME_WAIT",
    "CLOSE",
    "CLOSE_WAIT",
    "LAST_ACK",
    "LISTEN",
    "CLOSING"
  };

  private ProcSockets() {}

  /** This process's TCP sockets (IPv4 and IPv6). */
  public static List<Socket> own() {
    Set<String> inodes = socketInodes(Path.of("/proc/self/fd"));
    var sockets = new ArrayList<Socket>();
    for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
      sockets.addAll(parse(read(Path.of(table)), inodes));
    }
    return sockets;
  }

  /** This process's TCP sockets with {@code port} at either end. */
  public static List<Socket> touching(int port) {
    return own().stream().filter(s -> s.touches(port)).toList();
  }

  /** The rows of a {@code /proc/net/tcp} table whose inode is in {@code inodes}. */
  static List<Socket> parse(List<String> lines, Set<String> inodes) {
    var out = new ArrayList<Socket>();
    for (int i = 1; i < lines.size(); i++) {
      String[] f = lines.get(i).trim().split("\\s+");
      if (f.length < 10 || !inodes.contains(f[9])) {
        continue;
      }
      int state = Integer.parseInt(f[3], 16);
      out.add(
          new Socket(
              port(f[1]),
              port(f[2]),
              state < STATES.length ? STATES[state] : String.valueOf(state)));
    }
    return out;
  }

  private static int port(String addressAndPort) {
    return Integer.parseInt(addressAndPort.substring(addressAndPort.indexOf(':') + 1), 16);
  }

  private static Set<String> socketInodes(Path fds) {
    var inodes = new HashSet<String>();
    if (!Files.isDirectory(fds)) {
      return inodes;
    }
    try (var links = Files.list(fds)) {
      for (Path fd : (Iterable<Path>) links::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException gone) {
          // closed while listing
        }
      }
    } catch (IOException e) {
      return inodes;
    }
    return inodes;
  }

  private static List<String> read(Path table) {
    try {
      return Files.readAllLines(table);
    } catch (IOException e) {
      return List.of();
    }
  }
}
