package dev.nightshift.agent.git;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicInteger;

import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.transport.resolver.FileResolver;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** JGit's GitServlet on Jetty 12, behind HTTP Basic authentication with one user and token. */
final class HttpGitServer implements AutoCloseable {

    private final Server server;
    final AtomicInteger rejected = new AtomicInteger();

    HttpGitServer(Path base, String user, String token) throws Exception {
        server = new Server(new InetSocketAddress("127.0.0.1", 0));
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        GitServlet git = new GitServlet();
        git.setRepositoryResolver(new FileResolver<HttpServletRequest>(base.toFile(), true));
        context.addServlet(new ServletHolder(git), "/git/*");
        String expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + token).getBytes(StandardCharsets.UTF_8));
        Filter basicAuth = (request, response, chain) -> {
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

    String url(String repository) {
        return "http://127.0.0.1:" + ((NetworkConnector) server.getConnectors()[0]).getLocalPort() + "/git/" + repository;
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
