// Drives Groundnote with the official TypeScript MCP SDK, as most hosts do, and prints what the
// client received as one JSON line (tests/surfaces/test_typescript_hosts.py reads it).
//
//   node drive.mjs stdio COMMAND [ARG…]      node drive.mjs http URL TOKEN
//
// It lists tools, makes the same entity twice (the second call is refused as a duplicate),
// lists resources and reads the tree of its scope and of a scope it has no right on, and
// reports each result as the SDK handed it over; an SDK exception is reported, not thrown.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [kind, ...rest] = process.argv.slice(2);
const transport =
  kind === "stdio"
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(rest[0]), {
        requestInit: { headers: { Authorization: `Bearer ${rest[1]}` } },
      });

async function settled(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    const thrown = { code: error.code ?? null, message: String(error.message ?? error) };
    return { thrown: { ...thrown, data: error.data ?? null } };
  }
}

const client = new Client({ name: "groundnote-ts-host-test", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const entity = { scope: "sales", type: "organisation", name: "Müller Logistik GmbH" };
const created = await settled(client.callTool({ name: "entity_create", arguments: entity }));
const refused = await settled(client.callTool({ name: "entity_create", arguments: entity }));
const resources = await settled(client.listResources());
const tree = await settled(client.readResource({ uri: "groundnote://sales/tree" }));
const foreign = await settled(client.readResource({ uri: "groundnote://elsewhere/tree" }));
process.stdout.write(
  JSON.stringify({
    instructions: client.getInstructions() ?? null,
    tools: tools.map((t) => ({ name: t.name, title: t.title ?? null })),
    created,
    refused,
    resources,
    tree,
    foreign,
  }) + "\n",
);
await client.close();
