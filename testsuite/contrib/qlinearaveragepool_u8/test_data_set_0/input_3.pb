BYsJ
×#=