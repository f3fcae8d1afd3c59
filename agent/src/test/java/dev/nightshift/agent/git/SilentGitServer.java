package dev.nightshift.agent.git;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Git host that hangs: it accepts connections on loopback and never says a word, so a client
 * without a timeout waits for an answer forever. Closing it closes every connection.
 */
public final class SilentGitServer implements AutoCloseable {

    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    public SilentGitServer() throws IOException {
        Thread acceptor = new Thread(this::accept, "silent-git-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept() {
        try {
            while (true) {
                accepted.add(socket.accept());
            }
        } catch (IOException closed) {
            // Closed.
        }
    }

    /** A {@code git://} URL of a repository on this server. */
    public String url(String repository) {
        return "git://127.0.0.1:" + socket.getLocalPort() + "/" + repository;
    }

    /** An {@code http://} URL of a repository on this server: the request is read by no one and never answered. */
    public String httpUrl(String repository) {
        return "http://127.0.0.1:" + socket.getLocalPort() + "/" + repository;
    }

    /** Connections accepted so far. */
    public int connections() {
        return accepted.size();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        for (Socket s : accepted) {
            s.close();
        }
    }
}
