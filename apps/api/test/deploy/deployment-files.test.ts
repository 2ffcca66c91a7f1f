import { existsSync, readdirSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import draft7MetaSchema from "ajv/dist/refs/json-schema-draft-07.json" with { type: "json" };
import { DockerfileParser, type Instruction, type JSONInstruction } from "dockerfile-ast";
import { validate as lintDockerfile } from "dockerfile-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import drizzleConfig from "../../drizzle.config.ts";
import { DEFAULT_MODEL_DIR } from "../../src/adapters/asr/sherpa-onnx-speech-engine.ts";
import { projectYtdlpVenv } from "../../src/sources/ytdlp/find-ytdlp.ts";
import { sidecarScript, ytdlpRequirements } from "../../src/sources/ytdlp/ytdlp-sidecar.ts";
import { defaultPoolSize } from "../../src/store/database.ts";
import tsupConfig from "../../tsup.config.ts";

/**
 * No Docker engine runs where the tests run, so the deployment files are checked as far as that
 * allows: the Dockerfile linted and read stage by stage, compose.yaml validated against the Compose
 * Specification's schema, and both held to the package scripts and files they depend on.
 */
const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const apiPackage = fileURLToPath(new URL("../..", import.meta.url));
const readRepositoryFile = (path: string) => readFileSync(`${repositoryRoot}${path}`, "utf8");
const rootManifest = JSON.parse(readRepositoryFile("package.json"));
const apiManifest = JSON.parse(readRepositoryFile("apps/api/package.json"));

interface Step {
  keyword: string;
  args: string[];
  /** The instruction as written, continuation lines included. */
  text: string;
  instruction: Instruction;
}

interface Stage {
  name: string | undefined;
  image: string | undefined;
  steps: Step[];
}

const dockerfileText = readRepositoryFile("Dockerfile");
const dockerfile = DockerfileParser.parse(dockerfileText);
const stages = stagesOf();
const runtime = stages.at(-1);
const runtimeEnvironment = runtime?.steps.filter((step) => step.keyword === "ENV").flatMap((step) => step.args) ?? [];
/** The port the image's service listens on. */
const imagePort = runtimeEnvironment.find((pair) => pair.startsWith("PORT="))?.slice("PORT=".length);

function stagesOf(): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === "FROM") {
      const from = dockerfile
        .getFROMs()
        .find((candidate) => candidate.getRange().start.line === instruction.getRange().start.line);
      stages.push({ name: from?.getBuildStage() ?? undefined, image: from?.getImage() ?? undefined, steps: [] });
      continue;
    }
    const step: Step = {
      keyword,
      args: instruction.getArguments().map((argument) => argument.getValue()),
      text: instruction.getTextContent(),
      instruction,
    };
    stages.at(-1)?.steps.push(step);
  }
  return stages;
}

/** The words of a JSON-form instruction (`CMD ["node", "dist/main.js"]`). */
const jsonWords = (step: Step) =>
  (step.instruction as JSONInstruction).getJSONStrings().map((word) => word.getJSONValue());

/** The command a package script runs, without its leading `NAME=value` assignments. */
const scriptCommand = (script: string) => script.replace(/^(\w+=\S*\s+)+/, "");

/** The commands of the RUN steps, split at `&&`. */
const commandsOf = (stage: Stage) =>
  stage.steps
    .filter((step) => step.keyword === "RUN")
    .flatMap((step) => step.args.join(" ").split(" && "))
    .map((command) => command.trim());

describe("Dockerfile", () => {
  const build = stages.find((stage) => stage.name === "build");

  it("has no problem the Dockerfile linter finds", () => {
    expect(lintDockerfile(dockerfileText).map((problem) => problem.message)).toEqual([]);
  });

  it("builds in a stage of its own and runs from a second one as a user other than root", () => {
    expect(stages.map((stage) => stage.name)).toEqual(["build", "runtime"]);
    const users = runtime?.steps.filter((step) => step.keyword === "USER").map((step) => step.args[0]);
    expect(users?.at(-1)).toBeDefined();
    expect(users?.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it("takes a Node the packages' engines accept, and installs the pnpm the repository names", () => {
    const image = dockerfile
      .getARGs()
      .map((arg) => arg.getProperty())
      .find((property) => property?.getName() === "NODE_IMAGE")
      ?.getValue();
    const [major, minor] = (/^node:(\d+)\.(\d+)\.\d+-/.exec(image ?? "") ?? []).slice(1).map(Number);
    const [needMajor, needMinor] = (/^>=(\d+)\.(\d+)$/.exec(rootManifest.engines.node) ?? []).slice(1).map(Number);
    expect(major).toBe(needMajor);
    expect(minor).toBeGreaterThanOrEqual(needMinor as number);
    for (const stage of stages) expect(stage.image).toMatch(/^\$\{NODE_IMAGE\}$/);
    expect(commandsOf(build as Stage)).toContain(
      `npm install --global --no-fund --no-audit ${rootManifest.packageManager}`,
    );
  });

  it("copies into the build stage only files the repository has", () => {
    for (const step of build?.steps.filter((candidate) => candidate.keyword === "COPY") ?? []) {
      for (const source of step.args.slice(0, -1)) expect(existsSync(`${repositoryRoot}${source}`), source).toBe(true);
    }
  });

  it("builds the API with its package's build script, and deploys the directory the runtime stage copies", () => {
    const commands = commandsOf(build as Stage);
    expect(commands).toContain("pnpm install --frozen-lockfile --offline");
    const buildCommand = commands.find((command) => command.startsWith("pnpm --filter @verbatim/api "));
    expect(buildCommand).toBe("pnpm --filter @verbatim/api build");
    expect(apiManifest.scripts.build).toBeDefined();
    const deployed = /^pnpm --filter @verbatim\/api deploy --prod --offline (\S+)$/.exec(
      commands.find((command) => command.includes(" deploy ")) ?? "",
    )?.[1];
    const copy = runtime?.steps.find((step) => step.keyword === "COPY");
    expect(copy?.text).toMatch(/--from=build\b/);
    expect(copy?.args.at(-2)).toBe(deployed);
    expect(copy?.args.at(-1)).toBe(runtime?.steps.filter((step) => step.keyword === "WORKDIR").at(-1)?.args[0]);
  });

  it("starts the compiled service as the package's start:production script does, in production", () => {
    const cmd = runtime?.steps.find((step) => step.keyword === "CMD");
    expect(jsonWords(cmd as Step)).toEqual(scriptCommand(apiManifest.scripts["start:production"]).split(" "));
    expect(apiManifest.scripts["start:production"]).toMatch(/^NODE_ENV=production /);
    expect(runtimeEnvironment).toContain("NODE_ENV=production");
    const entry = jsonWords(cmd as Step)[1]?.replace(/^dist\/|\.js$/g, "");
    expect(Object.keys((tsupConfig as { entry: Record<string, string> }).entry)).toContain(entry);
  });

  it("listens where it exposes and checks its health on GET /api/v2/health", () => {
    expect(imagePort).toMatch(/^\d+$/);
    expect(runtime?.steps.find((step) => step.keyword === "EXPOSE")?.args).toEqual([imagePort]);
    expect(runtimeEnvironment).toContain("HOST=0.0.0.0");
    const healthcheck = runtime?.steps.find((step) => step.keyword === "HEALTHCHECK");
    expect(healthcheck?.text).toMatch(/fetch\(`http:\/\/127\.0\.0\.1:\$\{process\.env\.PORT\}\/api\/v2\/health`\)/);
  });

  it("ships the API package's files the compiled code reads: the bundle, the model and the migrations", () => {
    const files: string[] = apiManifest.files;
    const shipped = (path: string) => files.some((entry) => path === entry || path.startsWith(`${entry}/`));
    const modelDir = relative(apiPackage, DEFAULT_MODEL_DIR);
    expect(shipped(modelDir), modelDir).toBe(true);
    expect(readdirSync(DEFAULT_MODEL_DIR)).toEqual(expect.arrayContaining(["encoder.int8.onnx", "tokens.txt"]));
    const migrations = relative(apiPackage, `${apiPackage}${drizzleConfig.out}`);
    expect(shipped(migrations), migrations).toBe(true);
    expect(readdirSync(`${apiPackage}${drizzleConfig.out}`).some((name) => name.endsWith(".sql"))).toBe(true);
    expect(shipped("dist")).toBe(true);
    for (const file of [sidecarScript, ytdlpRequirements]) {
      expect(shipped(relative(apiPackage, file)), file).toBe(true);
      expect(existsSync(file), file).toBe(true);
    }
  });

  it("makes yt-dlp's environment where the service looks for it, from the requirements file it ships", () => {
    const commands = commandsOf(runtime as Stage);
    const workdir = runtime?.steps.filter((step) => step.keyword === "WORKDIR").at(-1)?.args[0];
    const venv = `${workdir}/${relative(apiPackage, projectYtdlpVenv)}`;
    expect(commands).toContain(`python3 -m venv ${venv}`);
    const install = commands.find((command) => command.startsWith(`${venv}/bin/pip install `));
    expect(install).toMatch(new RegExp(`--requirement ${workdir}/${relative(apiPackage, ytdlpRequirements)}$`));
    expect(commands.some((command) => /apt-get install .*\bpython3-venv\b/.test(command))).toBe(true);
  });

  it("leaves the checkout's installs, builds and local data out of the build context", () => {
    const ignored = readRepositoryFile(".dockerignore")
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("#"));
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "**/dist", ".verbatim", ".git"]));
  });
});

describe("compose.yaml", () => {
  type Service = {
    build?: unknown;
    image?: string;
    environment?: Record<string, string | null>;
    depends_on?: Record<string, { condition: string }>;
    healthcheck?: { test?: string[]; disable?: boolean };
    ports?: string[];
    command?: string[];
  };
  let compose: { services: Record<string, Service> };

  beforeAll(() => {
    compose = parse(readRepositoryFile("compose.yaml"), { merge: true });
  });

  const verbatimServices = () => Object.entries(compose.services).filter(([, service]) => service.build === ".");
  const withRole = (role: string) =>
    verbatimServices().filter(([, service]) => service.environment?.VERBATIM_ROLE === role);

  it("is valid by the Compose Specification's schema", () => {
    // Not strict: the schema is the specification's, written for validators less picky than Ajv's strict mode.
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addMetaSchema({ ...draft7MetaSchema, $id: "https://json-schema.org/draft-07/schema" });
    const schema = JSON.parse(readFileSync(`${apiPackage}test/fixtures/compose-spec/compose-spec.json`, "utf8"));
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? [], JSON.stringify(ajv.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it("runs two API processes and two workers of the Dockerfile's image, and nothing but them and PostgreSQL", () => {
    expect(withRole("api")).toHaveLength(2);
    expect(withRole("worker")).toHaveLength(2);
    expect(verbatimServices()).toHaveLength(4);
    expect(Object.keys(compose.services).sort()).toEqual(
      ["postgres", ...verbatimServices().map(([name]) => name)].sort(),
    );
    expect(existsSync(`${repositoryRoot}Dockerfile`)).toBe(true);
  });

  it("points every process at the PostgreSQL service, started once it answers", () => {
    const postgres = compose.services.postgres as Service;
    expect(postgres.healthcheck?.test).toEqual(expect.arrayContaining(["pg_isready"]));
    const database = postgres.environment?.POSTGRES_DB;
    const user = postgres.environment?.POSTGRES_USER;
    for (const [name, service] of verbatimServices()) {
      const url = new URL((service.environment?.DATABASE_URL ?? "").replace(/\$\{[^}]+\}/g, "secret"));
      expect(url.hostname, name).toBe("postgres");
      expect(url.pathname, name).toBe(`/${database}`);
      expect(url.username, name).toBe(user);
      expect(service.depends_on?.postgres?.condition, name).toBe("service_healthy");
    }
  });

  it("allows PostgreSQL more connections than every process's pool together", () => {
    const command = (compose.services.postgres as Service).command ?? [];
    const setting = command.find((word) => word.startsWith("max_connections="));
    const maxConnections = Number(setting?.split("=")[1]);
    expect(maxConnections).toBeGreaterThan(verbatimServices().length * defaultPoolSize);
  });

  it("publishes the API processes' port and health-checks them, and not the workers, which serve no HTTP", () => {
    for (const [name, service] of withRole("api")) {
      expect(service.healthcheck?.disable, name).toBeUndefined();
      expect(service.ports?.[0]?.split(":").at(-1), name).toBe(imagePort);
    }
    for (const [name, service] of withRole("worker")) {
      expect(service.healthcheck?.disable, name).toBe(true);
      expect(service.ports, name).toBeUndefined();
    }
  });
});
