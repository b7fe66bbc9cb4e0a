const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });

rl.on('line', (line) => {
    const req = JSON.parse(line);
    const method = req.method;
    const params = req.params || {};

    let resp;
    if (method === 'activate') {
        resp = {
            tools: [{
                name: 'timestamp',
                description: 'Get current timestamp',
                parameters: []
            }]
        };
    } else if (method === 'execute_tool') {
        if (params.toolName === 'timestamp') {
            resp = { result: new Date().toISOString() };
        } else {
            resp = { error: `unknown tool: ${params.toolName}` };
        }
    } else if (method === 'deactivate') {
        resp = { result: 'ok' };
    } else {
        resp = { error: `unknown method: ${method}` };
    }

    process.stdout.write(JSON.stringify(resp) + '\n');
});
