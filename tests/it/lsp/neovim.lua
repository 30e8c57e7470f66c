-- Drives `fbc-edit lsp` from Neovim's own client (0.7 and later): opens a catalog file, waits for
-- diagnostics, types a wrong default channel, follows a definition, applies a quick fix and saves.
-- Every step is written to $FBC_LSP_OUT as one line; the test reads them and the saved file.
local bin = os.getenv('FBC_LSP_BIN')
local file = os.getenv('FBC_LSP_FILE')
local root = os.getenv('FBC_LSP_ROOT')
local out = os.getenv('FBC_LSP_OUT')
local lines = {}
local function say(s) table.insert(lines, s) end
local function finish()
  local f = io.open(out, 'w')
  f:write(table.concat(lines, '\n') .. '\n')
  f:close()
  vim.cmd('qall!')
end

local function main()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  local published = {}
  local client = vim.lsp.start_client({
    cmd = { bin, 'lsp' },
    root_dir = root,
    handlers = {
      ['textDocument/publishDiagnostics'] = function(_, result)
        published[result.uri] = result.diagnostics
      end,
    },
  })
  vim.lsp.buf_attach_client(buf, client)

  local function errors()
    local n, first = 0, nil
    for _, d in ipairs(published[uri] or {}) do
      if d.severity == 1 then
        n = n + 1
        first = first or d
      end
    end
    return n, first
  end

  if not vim.wait(60000, function() return published[uri] ~= nil end, 20) then
    say('no diagnostics')
    return finish()
  end
  say('opened errors=' .. errors())

  -- Type a default channel that names no channel.
  local text = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local default_line
  for i, l in ipairs(text) do
    if l:match('^defaultChannel:') then default_line = i - 1 end
  end
  published[uri] = nil
  vim.api.nvim_buf_set_lines(buf, default_line, default_line + 1, false, { 'defaultChannel: nowhere' })
  if not vim.wait(60000, function() return errors() > 0 end, 20) then
    say('no error after typing')
    return finish()
  end
  local n, err = errors()
  say('typed errors=' .. n .. ' line=' .. err.range.start.line .. ' code=' .. tostring(err.code))

  -- Follow `replaces: cache-operator.v1.0.0` to its bundle.
  local replaces_line, col
  for i, l in ipairs(text) do
    local c = l:find('replaces: cache%-operator%.v1%.0%.0')
    if c and not replaces_line then replaces_line, col = i - 1, c + 10 end
  end
  local def = vim.lsp.buf_request_sync(buf, 'textDocument/definition', {
    textDocument = { uri = uri },
    position = { line = replaces_line, character = col },
  }, 30000)
  local loc = def and def[client] and def[client].result
  if loc and loc[1] then loc = loc[1] end
  if loc then
    say('definition line=' .. loc.range.start.line .. ' same_file=' .. tostring(loc.uri == uri))
  else
    say('no definition')
  end

  -- The quick fix for the error: make candidate the default channel; then save.
  local actions = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri },
    range = err.range,
    context = { diagnostics = { err } },
  }, 30000)
  local chosen
  for _, a in ipairs((actions and actions[client] and actions[client].result) or {}) do
    if a.title == 'Make candidate the default channel' then chosen = a end
  end
  if not chosen then
    say('no code action')
    return finish()
  end
  vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
  vim.cmd('write')
  say('applied ' .. chosen.title)
  vim.lsp.stop_client(client)
  finish()
end

local ok, e = pcall(main)
if not ok then
  say('error ' .. tostring(e))
  finish()
end
