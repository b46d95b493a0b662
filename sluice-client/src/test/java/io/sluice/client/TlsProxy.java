package io.sluice.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * Terminates TLS that requires a client certificate in front of a plain-HTTP server on
 * loopback, so that a client can meet a real Sluice server over mutual TLS whether or not the
 * server speaks TLS itself. Each accepted connection gets one thread per direction; either
 * direction ending closes both sockets. Records the client certificate of every connection.
 */
final class TlsProxy implements AutoCloseable {
  private final SSLServerSocket listener;
  private final int targetPort;
  private final Thread acceptor;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final List<String> clients = new CopyOnWriteArrayList<>();

  private TlsProxy(SSLContext tls, int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket();
    listener.setNeedClientAuth(true);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.acceptor = new Thread(this::acceptLoop, "tls-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  static TlsProxy start(SSLContext tls, int targetPort) {
    try {
      return new TlsProxy(tls, targetPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Through the name {@code localhost}, which the test server certificate carries. */
  String url() {
    return "https://localhost:" + listener.getLocalPort();
  }

  /** The subject of each connection's client certificate, once its handshake completed. */
  List<String> clientCertificates() {
    return List.copyOf(clients);
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        SSLSocket client = (SSLSocket) listener.accept();
        sockets.add(client);
        start("tls-proxy-conn", () -> serve(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(SSLSocket client) {
    try (Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
      sockets.add(server);
      client.startHandshake();
      clients.add(client.getSession().getPeerPrincipal().getName());
      Thread upstream = start("tls-proxy-up", () -> pump(client, server));
      pump(server, client);
      upstream.join(5_000);
    } catch (IOException e) {
      // A refused handshake or a dropped connection: the client sees it as such.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(client);
    }
  }

  /** Copies until either side ends, then closes both, ending the opposite pump too. */
  private static void pump(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buffer = new byte[16 * 1024];
      int read;
      while ((read = in.read(buffer)) >= 0) {
        out.write(buffer, 0, read);
      }
    } catch (IOException e) {
      // One side went away.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private Thread start(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
    return thread;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    sockets.forEach(TlsProxy::closeQuietly);
    try {
      acceptor.join(2_000);
      for (Thread thread : threads) {
        thread.join(2_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
