package dev.nightshift.agent.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP relay on loopback in front of the API server that can cut every open connection at once,
 * as a load balancer restart or a network blip does to watches in a real cluster.
 */
final class SeveringProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "severing-proxy");
        t.setDaemon(true);
        return t;
    });
    /** Client-side sockets; the upstream of each is closed by its relay when the client side goes. */
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Set<Socket> upstreams = ConcurrentHashMap.newKeySet();
    private volatile boolean refusing;

    SeveringProxy(int target) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = target;
        threads.execute(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (refusing) {
                    client.close();
                    continue;
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                upstreams.add(upstream);
                threads.execute(() -> relay(client, upstream));
                threads.execute(() -> relay(upstream, client));
            } catch (IOException e) {
                // Closed, or the upstream refused: the client sees its connection fail.
            }
        }
    }

    private void relay(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // Cut or closed: close both ends below.
        } finally {
            // Towards the API server a graceful end (FIN), as a client going away looks; an abrupt
            // reset makes the mock server block its event loop.
            for (Socket s : new Socket[] {from, to}) {
                if (open.contains(s)) {
                    close(s);
                } else {
                    try {
                        s.shutdownOutput();
                    } catch (IOException ignored) {
                        // Already closed.
                    }
                }
            }
        }
    }

    private void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    /** Cuts every client connection open now; new ones are relayed as before. Returns how many were cut. */
    int sever() {
        int count = open.size();
        Set.copyOf(open).forEach(this::close);
        return count;
    }

    /** While refusing, the API server is unreachable: open connections are cut and new ones closed at once. */
    void refuse(boolean on) {
        refusing = on;
        if (on) {
            sever();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sever();
        for (Socket s : upstreams) {
            s.close();
        }
        threads.shutdownNow();
    }
}
