// Types for mcp-venv.mjs, which the tests import.

export const MCP_VENV: string;
export const MCP_VENV_PYTHON: string;
export function pinnedMcpSdk(): string;
export function installedMcpSdk(): string | null;
