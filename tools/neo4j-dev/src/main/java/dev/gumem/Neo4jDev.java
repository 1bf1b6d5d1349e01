package dev.gumem;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilderImplementation;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Development/test Neo4j for GUMem: an embedded Neo4j Community DBMS with the Bolt and HTTP
 * connectors (and Neo4j Browser at /browser/ when neo4j-browser is on the classpath).
 *
 * <pre>
 * NEO4J_DEV_PASSWORD=... java [--add-opens ...] -cp target/neo4j-dev.jar:target/lib/* \
 *     dev.gumem.Neo4jDev --home DIR [--bolt-port 7687] [--http-port 7474] [--conf key=value]...
 * </pre>
 *
 * <p>The password of user {@code neo4j} is taken from the environment variable
 * {@code NEO4J_DEV_PASSWORD} (at least 8 characters) and is authoritative: it is set on every
 * start, so the first start of an empty home never keeps the default password. Once the DBMS is up
 * the launcher prints {@code NEO4J_DEV_READY bolt=... http=... version=...} on stdout and writes the
 * same line to {@code DIR/neo4j-dev.ready}; on SIGTERM/SIGINT a shutdown hook stops the DBMS
 * cleanly and removes that file.
 *
 * <p>Settings are passed raw ({@code setConfigRaw}); the public {@code
 * DatabaseManagementServiceBuilder} is a thin wrapper around {@code
 * DatabaseManagementServiceBuilderImplementation} that does not expose raw settings.
 */
public final class Neo4jDev {
    static final String PASSWORD_ENV = "NEO4J_DEV_PASSWORD";
    static final String READY_FILE = "neo4j-dev.ready";
    static final int MIN_PASSWORD_LENGTH = 8;
    static final int EXIT_USAGE = 2;
    static final int EXIT_START_FAILED = 3;

    private Neo4jDev() {}

    public static void main(String[] args) {
        PrintStream out = System.out;
        Args parsed;
        try {
            parsed = Args.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("neo4j-dev: " + e.getMessage());
            System.err.println(
                    "usage: Neo4jDev --home DIR [--bolt-port N] [--http-port N] [--conf key=value]...");
            System.exit(EXIT_USAGE);
            return;
        }
        String password = System.getenv(PASSWORD_ENV);
        if (password == null || password.codePointCount(0, password.length()) < MIN_PASSWORD_LENGTH) {
            System.err.println(
                    "neo4j-dev: set " + PASSWORD_ENV + " to a password of at least "
                            + MIN_PASSWORD_LENGTH + " characters");
            System.exit(EXIT_USAGE);
            return;
        }
        try {
            run(parsed, password, out);
        } catch (Throwable t) {
            System.err.println("neo4j-dev: failed to start Neo4j: " + t);
            if (!(t instanceof IllegalArgumentException)) { // bad settings: the message says it all
                t.printStackTrace();
            }
            System.err.flush();
            // exit (not return): a half-started DBMS may hold non-daemon threads; the shutdown hook,
            // if already registered, still stops it cleanly.
            System.exit(EXIT_START_FAILED);
        }
    }

    private static void run(Args args, String password, PrintStream out) throws Exception {
        Path home = args.home.toAbsolutePath().normalize();
        Files.createDirectories(home);
        Path readyFile = home.resolve(READY_FILE);
        Files.deleteIfExists(readyFile);

        Map<String, String> conf = defaultConfig(args.boltPort, args.httpPort);
        conf.putAll(args.conf);

        long t0 = System.nanoTime();
        Log4jLogProvider userLog = new Log4jLogProvider(out, Level.INFO);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilderImplementation(home)
                .setConfigRaw(conf)
                .setUserLogProvider(userLog)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("NEO4J_DEV_STOPPING");
            out.flush();
            try {
                Files.deleteIfExists(readyFile);
            } catch (IOException ignored) {
                // best effort
            }
            try {
                dbms.shutdown();
            } catch (Throwable t) {
                System.err.println("neo4j-dev: error during shutdown: " + t);
            }
            userLog.close();
            out.println("NEO4J_DEV_STOPPED");
            out.flush();
            stopped.countDown();
        }, "neo4j-dev-shutdown"));

        GraphDatabaseService system = dbms.database("system");
        setPassword(system, password, out);

        GraphDatabaseService db = dbms.database(conf.getOrDefault("initial.dbms.default_database", "neo4j"));
        if (!db.isAvailable(TimeUnit.MINUTES.toMillis(5))) {
            throw new IllegalStateException("database " + db.databaseName() + " did not become available");
        }
        String version = neo4jVersion(db);
        String bolt = boundAddress(db, ConnectorType.BOLT, conf.get("server.bolt.listen_address"));
        String http = boundAddress(db, ConnectorType.HTTP, conf.get("server.http.listen_address"));
        double seconds = (System.nanoTime() - t0) / 1e9;
        String line = String.format(
                "NEO4J_DEV_READY bolt=%s http=%s version=%s pid=%d seconds=%.1f",
                bolt, http, version, ProcessHandle.current().pid(), seconds);
        Path tmp = home.resolve(READY_FILE + ".tmp");
        Files.writeString(tmp, line + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, readyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        out.println(line);
        out.flush();
        stopped.await();
    }

    static Map<String, String> defaultConfig(int boltPort, int httpPort) {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("server.bolt.enabled", "true");
        conf.put("server.bolt.listen_address", "127.0.0.1:" + boltPort);
        conf.put("server.bolt.advertised_address", "127.0.0.1:" + boltPort);
        conf.put("server.bolt.tls_level", "DISABLED");
        conf.put("server.http.enabled", "true");
        conf.put("server.http.listen_address", "127.0.0.1:" + httpPort);
        conf.put("server.http.advertised_address", "127.0.0.1:" + httpPort);
        conf.put("server.https.enabled", "false");
        conf.put("dbms.security.auth_enabled", "true");
        conf.put("dbms.usage_report.enabled", "false");
        // Modest memory: this DBMS shares the machine with test runs and other work.
        conf.put("server.memory.pagecache.size", "256m");
        conf.put("dbms.memory.transaction.total.max", "512m");
        // Small, not preallocated transaction logs (the default preallocates 256 MiB per database).
        conf.put("db.tx_log.rotation.size", "16M");
        conf.put("db.tx_log.preallocate", "false");
        conf.put("db.tx_log.rotation.retention_policy", "128M size");
        // Bolt waits 5 s + 5 s for idle connections and its thread pool on shutdown by default.
        conf.put("internal.server.bolt.connection_shutdown_wait_time", "1s");
        conf.put("internal.server.bolt.thread_pool_shutdown_wait_time", "1s");
        return conf;
    }

    /** Makes {@code password} the password of user neo4j (no change required at first login). */
    private static void setPassword(GraphDatabaseService system, String password, PrintStream out) {
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
            out.println("neo4j-dev: password of user neo4j set from " + PASSWORD_ENV);
        } catch (QueryExecutionException e) {
            String msg = String.valueOf(e.getMessage()).toLowerCase();
            if (!msg.contains("same")) {
                throw e;
            }
            // Already this password; make sure no password change is pending.
            system.executeTransactionally("ALTER USER neo4j SET PASSWORD CHANGE NOT REQUIRED");
        }
    }

    private static String neo4jVersion(GraphDatabaseService db) {
        return db.executeTransactionally(
                "CALL dbms.components() YIELD name, versions RETURN name, versions",
                Map.of(),
                result -> {
                    while (result.hasNext()) {
                        Map<String, Object> row = result.next();
                        if ("Neo4j Kernel".equals(row.get("name")) && row.get("versions") instanceof List<?> v
                                && !v.isEmpty()) {
                            return String.valueOf(v.get(0));
                        }
                    }
                    return "unknown";
                });
    }

    private static String boundAddress(GraphDatabaseService db, ConnectorType type, String configured) {
        try {
            ConnectorPortRegister ports = ((GraphDatabaseAPI) db).getDependencyResolver()
                    .resolveDependency(ConnectorPortRegister.class);
            HostnamePort hp = ports.getLocalAddress(type);
            if (hp != null) {
                return hp.getHost() + ":" + hp.getPort();
            }
        } catch (RuntimeException e) {
            // fall back to the configured address
        }
        return configured;
    }

    /** Command-line arguments. */
    static final class Args {
        Path home;
        int boltPort = 7687;
        int httpPort = 7474;
        final Map<String, String> conf = new LinkedHashMap<>();

        static Args parse(String[] argv) {
            Args a = new Args();
            List<String> list = List.of(argv);
            for (int i = 0; i < list.size(); i++) {
                String arg = list.get(i);
                String value = i + 1 < list.size() ? list.get(i + 1) : null;
                switch (arg) {
                    case "--home" -> a.home = Path.of(require(arg, value));
                    case "--bolt-port" -> a.boltPort = port(arg, require(arg, value));
                    case "--http-port" -> a.httpPort = port(arg, require(arg, value));
                    case "--conf" -> {
                        String kv = require(arg, value);
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--conf needs key=value, got: " + kv);
                        }
                        a.conf.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
                    }
                    default -> throw new IllegalArgumentException("unknown argument: " + arg);
                }
                i++;
            }
            if (a.home == null) {
                throw new IllegalArgumentException("--home is required");
            }
            return a;
        }

        private static String require(String flag, String value) {
            if (value == null) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return value;
        }

        private static int port(String flag, String value) {
            try {
                int p = Integer.parseInt(value);
                if (p < 0 || p > 65535) {
                    throw new NumberFormatException();
                }
                return p;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " needs a port number, got: " + value);
            }
        }
    }
}
