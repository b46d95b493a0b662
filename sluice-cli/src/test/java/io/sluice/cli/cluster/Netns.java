package io.sluice.cli.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Network namespaces for a cluster test, set up and torn down by the test: one namespace per
 * node, each joined to a bridge in the test's own namespace by a veth pair, so the test reaches
 * every node while the nodes' traffic between each other can be cut. A cut is a blackhole route
 * on both sides, so it needs no firewall tools. Needs root and {@code ip}.
 */
final class Netns implements AutoCloseable {
  private final String tag = String.format(Locale.ROOT, "%04x",
      ThreadLocalRandom.current().nextInt(0x10000));
  private final int subnet = 10 + ThreadLocalRandom.current().nextInt(240);
  private final int size;
  private final List<String> cuts = new ArrayList<>();
  private boolean bridgeUp;
  private int namespaces;

  private Netns(int size) {
    this.size = size;
  }

  /** Whether this machine lets the test create namespaces (root, {@code ip} installed). */
  static boolean available() {
    try {
      return new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start()
          .waitFor(5, TimeUnit.SECONDS) && isRoot();
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  static Netns create(int size) throws Exception {
    Netns net = new Netns(size);
    try {
      net.setUp();
      return net;
    } catch (Exception e) {
      net.close();
      throw e;
    }
  }

  private void setUp() throws Exception {
    run("ip", "link", "add", bridge(), "type", "bridge");
    bridgeUp = true;
    run("ip", "addr", "add", "10.213." + subnet + ".1/24", "dev", bridge());
    run("ip", "link", "set", bridge(), "up");
    for (int node = 1; node <= size; node++) {
      run("ip", "netns", "add", namespace(node));
      namespaces = node;
      run("ip", "link", "add", "slv" + tag + node, "type", "veth", "peer", "name",
          "slp" + tag + node);
      run("ip", "link", "set", "slp" + tag + node, "netns", namespace(node));
      run("ip", "link", "set", "slv" + tag + node, "master", bridge());
      run("ip", "link", "set", "slv" + tag + node, "up");
      inside(node, "ip", "addr", "add", address(node) + "/24", "dev", "slp" + tag + node);
      inside(node, "ip", "link", "set", "slp" + tag + node, "up");
      inside(node, "ip", "link", "set", "lo", "up");
    }
  }

  /** The address node {@code node} (1-based) listens on. */
  String address(int node) {
    return "10.213." + subnet + "." + (10 + node);
  }

  /** The command prefix that runs a command in node {@code node}'s namespace. */
  List<String> prefix(int node) {
    return List.of("ip", "netns", "exec", namespace(node));
  }

  /** Cuts traffic between two nodes both ways; the test still reaches both. */
  void cut(int a, int b) throws Exception {
    inside(a, "ip", "route", "add", "blackhole", address(b) + "/32");
    cuts.add(a + ":" + b);
    inside(b, "ip", "route", "add", "blackhole", address(a) + "/32");
    cuts.add(b + ":" + a);
  }

  /** Removes every cut. */
  void heal() throws Exception {
    for (String cut : List.copyOf(cuts)) {
      String[] ends = cut.split(":");
      inside(Integer.parseInt(ends[0]), "ip", "route", "del", "blackhole",
          address(Integer.parseInt(ends[1])) + "/32");
      cuts.remove(cut);
    }
  }

  private String bridge() {
    return "slbr" + tag;
  }

  private String namespace(int node) {
    return "slns" + tag + node;
  }

  private void inside(int node, String... command) throws Exception {
    List<String> full = new ArrayList<>(prefix(node));
    full.addAll(List.of(command));
    run(full.toArray(String[]::new));
  }

  private static void run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
    }
  }

  /** Deletes the namespaces (their veth ends go with them) and the bridge. */
  @Override
  public void close() {
    for (int node = 1; node <= namespaces; node++) {
      quietly("ip", "netns", "del", namespace(node));
    }
    if (bridgeUp) {
      quietly("ip", "link", "del", bridge());
    }
  }

  private static void quietly(String... command) {
    try {
      run(command);
    } catch (Exception e) {
      // Best effort: a namespace already gone is fine.
    }
  }
}
