package dev.nightshift.agent.git;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.transport.resolver.FileResolver;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * JGit's GitServlet on Jetty 12, behind HTTP Basic authentication with one user and token; over
 * plain HTTP, or over HTTPS with a key and certificate chain made for the test.
 */
final class HttpGitServer implements AutoCloseable {

    private final Server server;
    private final String scheme;
    final AtomicInteger rejected = new AtomicInteger();
    /** Requests received, whatever their answer. */
    final AtomicInteger requests = new AtomicInteger();
    /** Connections accepted: over HTTPS, each one is a TLS handshake (full or resumed). */
    final AtomicInteger connections = new AtomicInteger();

    HttpGitServer(Path base, String user, String token) throws Exception {
        this(base, user, token, Optional.empty());
    }

    /** Over HTTPS: {@code keys} holds the server's private key and certificate chain, both under {@code password}. */
    static HttpGitServer https(Path base, String user, String token, KeyStore keys, String password) throws Exception {
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStore(keys);
        tls.setKeyStorePassword(password);
        return new HttpGitServer(base, user, token, Optional.of(tls));
    }

    private HttpGitServer(Path base, String user, String token, Optional<SslContextFactory.Server> tls) throws Exception {
        scheme = tls.isPresent() ? "https" : "http";
        if (tls.isPresent()) {
            server = new Server();
            ServerConnector connector = new ServerConnector(server,
                    new SslConnectionFactory(tls.get(), "http/1.1"), new HttpConnectionFactory(new HttpConfiguration()));
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            connector.addEventListener(opened(connections));
            server.addConnector(connector);
        } else {
            server = new Server(new InetSocketAddress("127.0.0.1", 0));
            server.getConnectors()[0].addEventListener(opened(connections));
        }
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        GitServlet git = new GitServlet();
        git.setRepositoryResolver(new FileResolver<HttpServletRequest>(base.toFile(), true));
        context.addServlet(new ServletHolder(git), "/git/*");
        String expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + token).getBytes(StandardCharsets.UTF_8));
        Filter basicAuth = (request, response, chain) -> {
            requests.incrementAndGet();
            String given = ((HttpServletRequest) request).getHeader("Authorization");
            if (!expected.equals(given)) {
                if (given != null) {
                    rejected.incrementAndGet();
                }
                HttpServletResponse http = (HttpServletResponse) response;
                http.setHeader("WWW-Authenticate", "Basic realm=\"git\"");
                http.sendError(401);
                return;
            }
            chain.doFilter(request, response);
        };
        context.addFilter(new FilterHolder(basicAuth), "/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(context);
        server.start();
    }

    private static Connection.Listener opened(AtomicInteger count) {
        return new Connection.Listener() {
            @Override
            public void onOpened(Connection connection) {
                // Not the TLS layer under it, if any: one per TCP connection.
                if (!(connection instanceof org.eclipse.jetty.io.ssl.SslConnection)) {
                    count.incrementAndGet();
                }
            }
        };
    }

    String url(String repository) {
        return scheme + "://127.0.0.1:" + ((NetworkConnector) server.getConnectors()[0]).getLocalPort() + "/git/" + repository;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop", e);
        }
    }

}
